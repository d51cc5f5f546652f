package dev.resilience.sample.partner;

import org.springframework.stereotype.Component;

import dev.resilience.ratelimit.RateLimited;

/**
 * The partner's own enforcement: each API key may make {@code partner-server}'s number of calls
 * (and {@code partner-fleet-server}'s on the endpoint of the fleet demo). A call over the limit
 * throws, and the starter answers {@code 429} with {@code Retry-After}.
 */
@Component
public class PartnerQuota {

	@RateLimited(name = "partner-server", key = "#apiKey")
	public void charge(String apiKey) {
		// Admission is the whole job: the aspect has counted the call.
	}

	@RateLimited(name = "partner-fleet-server", key = "#apiKey")
	public void chargeFleet(String apiKey) {
		// As above, under the fleet endpoint's tighter plan.
	}

}
