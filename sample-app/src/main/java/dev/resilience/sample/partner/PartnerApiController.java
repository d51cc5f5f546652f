package dev.resilience.sample.partner;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.resilience.ratelimit.RateLimitExceededException;

/**
 * The partner API the sample's client calls. It stands in for a remote service that limits
 * each API key and answers {@code 429 Too Many Requests} beyond that.
 */
@RestController
@RequestMapping("/partner")
public class PartnerApiController {

	private final PartnerQuota quota;

	private final PartnerLedger ledger;

	public PartnerApiController(PartnerQuota quota, PartnerLedger ledger) {
		this.quota = quota;
		this.ledger = ledger;
	}

	@GetMapping("/orders/{id}")
	public Order order(@PathVariable long id, @RequestHeader("X-Api-Key") String apiKey) {
		this.quota.charge(apiKey);
		return order(id);
	}

	/**
	 * The same orders under a tighter plan ({@code partner-fleet-server}: 10 per second per API
	 * key), for the fleet demo; every answer is counted in the {@link PartnerLedger}.
	 */
	@GetMapping("/fleet/orders/{id}")
	public Order fleetOrder(@PathVariable long id, @RequestHeader("X-Api-Key") String apiKey) {
		try {
			this.quota.chargeFleet(apiKey);
		}
		catch (RateLimitExceededException ex) {
			this.ledger.throttled(apiKey);
			throw ex;
		}
		this.ledger.served(apiKey);
		return order(id);
	}

	private static Order order(long id) {
		return new Order(id, "customer-" + (id % 7), (id % 2 == 0) ? "SHIPPED" : "PROCESSING");
	}

}
