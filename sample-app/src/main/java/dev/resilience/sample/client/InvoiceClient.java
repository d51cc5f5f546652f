package dev.resilience.sample.client;

import org.springframework.core.env.Environment;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;

import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;
import dev.resilience.sample.partner.Invoice;

/**
 * Fetches invoices from a partner that fails now and then. {@code @Retryable} runs outside
 * {@code @RateLimited} (the aspects' default order), so every retry asks the client-side limiter
 * again; a {@code 503} is retried with exponential backoff and full jitter, and a {@code 429}'s
 * {@code Retry-After} (or the limiter's own) becomes the next delay. The policy is
 * {@code resilience.retries.partner-invoices} in application.yml.
 */
@Service
public class InvoiceClient {

	private final RestClient restClient;

	private final Environment environment;

	public InvoiceClient(RestClient.Builder restClientBuilder, Environment environment) {
		this.restClient = restClientBuilder.build();
		this.environment = environment;
	}

	@Retryable("partner-invoices")
	@RateLimited("partner-invoices")
	public Invoice fetchInvoice(long id) {
		return this.restClient.get()
			.uri("http://localhost:" + this.environment.getRequiredProperty("local.server.port") + "/partner/invoices/{id}", id)
			.retrieve()
			.body(Invoice.class);
	}

}
