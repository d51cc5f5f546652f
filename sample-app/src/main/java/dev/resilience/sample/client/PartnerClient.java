package dev.resilience.sample.client;

import org.springframework.core.env.Environment;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;

import dev.resilience.poll.PollUntil;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.sample.partner.Export;
import dev.resilience.sample.partner.Order;

/**
 * Calls the partner API, staying within the partner's published limits so that it is never
 * answered {@code 429}: {@code partner-api} paces calls with a token bucket and enforces the
 * partner's two windows (25 per 5 s and 300 per 60 s). A call that would have to wait longer
 * than {@code max-wait} is rejected at once.
 */
@Service
public class PartnerClient {

	private final RestClient restClient;

	private final Environment environment;

	private final String apiKey;

	public PartnerClient(RestClient.Builder restClientBuilder, Environment environment) {
		this.restClient = restClientBuilder.build();
		this.environment = environment;
		this.apiKey = environment.getProperty("sample.partner.api-key", "sample-client");
	}

	@RateLimited("partner-api")
	public Order fetchOrder(long id) {
		return this.restClient.get()
			.uri(baseUrl() + "/partner/orders/{id}", id)
			.header("X-Api-Key", this.apiKey)
			.retrieve()
			.body(Order.class);
	}

	@RateLimited("partner-api")
	public Export startExport() {
		return this.restClient.post()
			.uri(baseUrl() + "/partner/exports")
			.header("X-Api-Key", this.apiKey)
			.retrieve()
			.body(Export.class);
	}

	// Polling runs outside the limiter (the aspects' default order), so every status check waits for
	// its slot.
	@PollUntil(name = "partner-export", until = "#result.status == 'DONE'")
	@RateLimited("partner-api")
	public Export exportStatus(String id) {
		return this.restClient.get()
			.uri(baseUrl() + "/partner/exports/{id}", id)
			.header("X-Api-Key", this.apiKey)
			.retrieve()
			.body(Export.class);
	}

	// The partner API is served by this same application, on the port it was given at startup.
	private String baseUrl() {
		return this.environment.getProperty("sample.partner.base-url",
				"http://localhost:" + this.environment.getRequiredProperty("local.server.port"));
	}

}
