package dev.resilience.sample.partner;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The partner API the sample's client calls. It stands in for a remote service that limits
 * each API key and answers {@code 429 Too Many Requests} beyond that.
 */
@RestController
@RequestMapping("/partner")
public class PartnerApiController {

	private final PartnerQuota quota;

	public PartnerApiController(PartnerQuota quota) {
		this.quota = quota;
	}

	@GetMapping("/orders/{id}")
	public Order order(@PathVariable long id, @RequestHeader("X-Api-Key") String apiKey) {
		this.quota.charge(apiKey);
		return new Order(id, "customer-" + (id % 7), (id % 2 == 0) ? "SHIPPED" : "PROCESSING");
	}

}
