package dev.resilience.sample.client;

import org.springframework.core.env.Environment;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;

import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;
import dev.resilience.sample.partner.Order;

/**
 * Calls the partner's fleet endpoint, whose plan allows 10 calls per second per API key, through
 * a limiter guessed too high (50 per second). {@code partner-fleet} follows the partner: its
 * {@code pause-on-throttle} pauses the API key on the partner's first {@code 429} until the
 * answer's {@code Retry-After}, for every caller. {@code partner-fleet-unpaused} is the same guess
 * without it, for the comparison. {@code @Retryable("partner-fleet")} runs outside either
 * limiter, so a call turned away by a pause that ends within the policy's {@code max-delay} is
 * retried when it ends.
 */
@Service
public class FleetClient {

	private final RestClient restClient;

	private final Environment environment;

	public FleetClient(RestClient.Builder restClientBuilder, Environment environment) {
		this.restClient = restClientBuilder.build();
		this.environment = environment;
	}

	@Retryable("partner-fleet")
	@RateLimited(name = "partner-fleet", key = "#apiKey")
	public Order fetchOrder(String apiKey, long id) {
		return get(apiKey, id);
	}

	@Retryable("partner-fleet")
	@RateLimited(name = "partner-fleet-unpaused", key = "#apiKey")
	public Order fetchOrderUnpaused(String apiKey, long id) {
		return get(apiKey, id);
	}

	private Order get(String apiKey, long id) {
		return this.restClient.get()
			.uri(baseUrl() + "/partner/fleet/orders/{id}", id)
			.header("X-Api-Key", apiKey)
			.retrieve()
			.body(Order.class);
	}

	// The partner API is served by this same application, on the port it was given at startup.
	private String baseUrl() {
		return this.environment.getProperty("sample.partner.base-url",
				"http://localhost:" + this.environment.getRequiredProperty("local.server.port"));
	}

}
