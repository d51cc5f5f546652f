package dev.resilience.sample.demo;

import java.util.ArrayList;
import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.sample.client.PartnerClient;

/**
 * {@code GET /demo/burst?calls=40} fires calls at the partner API through the rate-limited
 * client and reports how many were admitted, waited and rejected.
 */
@RestController
@RequestMapping("/demo")
public class DemoController {

	private static final int MAX_CALLS = 1000;

	private final PartnerClient client;

	private final LastDecision lastDecision;

	public DemoController(PartnerClient client, LastDecision lastDecision) {
		this.client = client;
		this.lastDecision = lastDecision;
	}

	@GetMapping("/burst")
	public BurstReport burst(@RequestParam(defaultValue = "40") int calls) {
		if (calls < 1 || calls > MAX_CALLS) {
			throw new IllegalArgumentException("calls must be between 1 and " + MAX_CALLS + " but was " + calls);
		}
		int admitted = 0;
		int waited = 0;
		int rejected = 0;
		long waitedNanos = 0;
		long retryAfterSeconds = 0;
		List<String> outcomes = new ArrayList<>(calls);
		for (int i = 1; i <= calls; i++) {
			try {
				this.client.fetchOrder(i);
				RateLimitDecision decision = this.lastDecision.take();
				if (decision != null && !decision.getWait().isZero()) {
					waited++;
					waitedNanos += decision.getWait().toNanos();
					outcomes.add("waited " + decision.getWait().toMillis() + "ms");
				}
				else {
					admitted++;
					outcomes.add("admitted");
				}
			}
			catch (RateLimitExceededException ex) {
				this.lastDecision.take();
				rejected++;
				if (retryAfterSeconds == 0) {
					retryAfterSeconds = (long) Math.ceil(ex.getRetryAfter().toMillis() / 1000.0);
				}
				outcomes.add("rejected, retry after " + ex.getRetryAfter().toMillis() + "ms");
			}
		}
		return new BurstReport(calls, admitted, waited, rejected, waitedNanos / 1_000_000, retryAfterSeconds, outcomes);
	}

}
