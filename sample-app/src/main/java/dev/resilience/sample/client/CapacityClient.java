package dev.resilience.sample.client;

import org.springframework.stereotype.Service;

import dev.resilience.ratelimit.RateLimited;
import dev.resilience.sample.partner.LimitedCapacityPartner;

/**
 * Calls the partner of limited capacity through {@code partner-adaptive}, a limiter with
 * {@code max-concurrent: adaptive}: it lets as many calls be in flight as the partner serves
 * without queueing them much, learning that number from each call's latency, and calls beyond it
 * wait here (up to its {@code max-wait}) instead of in the partner's queue.
 */
@Service
public class CapacityClient {

	private final LimitedCapacityPartner partner;

	public CapacityClient(LimitedCapacityPartner partner) {
		this.partner = partner;
	}

	@RateLimited("partner-adaptive")
	public long work() throws InterruptedException {
		return this.partner.work();
	}

}
