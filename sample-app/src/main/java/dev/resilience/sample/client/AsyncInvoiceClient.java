package dev.resilience.sample.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.springframework.core.env.Environment;
import org.springframework.stereotype.Service;

import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;
import dev.resilience.sample.partner.Invoice;
import dev.resilience.sample.partner.PartnerInvoiceController;

import tools.jackson.databind.json.JsonMapper;

/**
 * Fetches invoices from the flaky partner with the JDK's {@link HttpClient#sendAsync}, the way
 * code built on {@code CompletableFuture} calls a partner. The method returns at once; it is
 * invoked only once the limiter {@code partner-async} admits the call (a wait for a slot is
 * scheduled, not slept), and the call holds its concurrency permit ({@code max-concurrent}) until
 * the future completes, not merely until the method returns. A failed future is retried by
 * {@code @Retryable} invoking the method again after a scheduled delay, each attempt asking the
 * limiter again. The policies are {@code resilience.retries.partner-async} and
 * {@code resilience.rate-limiters.partner-async} in application.yml.
 */
@Service
public class AsyncInvoiceClient {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private final JsonMapper json;

	private final Environment environment;

	public AsyncInvoiceClient(JsonMapper json, Environment environment) {
		this.json = json;
		this.environment = environment;
	}

	@Retryable("partner-async")
	@RateLimited("partner-async")
	public CompletableFuture<FetchedInvoice> fetchInvoice(long id) {
		URI uri = URI.create(baseUrl() + "/partner/invoices/" + id);
		HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build();
		return this.http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply((response) -> {
			if (response.statusCode() != 200) {
				throw new PartnerStatusException(response.statusCode(), uri.toString());
			}
			int partnerRequest = response.headers()
				.firstValue(PartnerInvoiceController.REQUEST_HEADER)
				.map(Integer::parseInt)
				.orElse(0);
			return new FetchedInvoice(this.json.readValue(response.body(), Invoice.class), partnerRequest);
		});
	}

	// The partner API is served by this same application, on the port it was given at startup.
	private String baseUrl() {
		return "http://localhost:" + this.environment.getRequiredProperty("local.server.port");
	}

}
