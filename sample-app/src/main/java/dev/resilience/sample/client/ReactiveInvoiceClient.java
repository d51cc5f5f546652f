package dev.resilience.sample.client;

import org.springframework.core.env.Environment;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.reactive.function.client.WebClient;

import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;
import dev.resilience.sample.partner.Invoice;
import dev.resilience.sample.partner.PartnerInvoiceController;

import reactor.core.publisher.Mono;

/**
 * Fetches invoices from the flaky partner through a {@code WebClient}, without holding a thread.
 * The method returns a {@code Mono} at once and nothing happens until it is subscribed: each
 * subscription asks the limiter {@code partner-reactive} (per customer), and {@code @Retryable},
 * outside it, subscribes again after a scheduled delay when the partner answers {@code 503} or
 * {@code 429}, so every retry asks the limiter again. A rejected call ends with
 * {@code RateLimitExceededException} through the {@code Mono}, which Spring MVC answers with
 * {@code 429}. The policies are {@code resilience.retries.partner-reactive} and
 * {@code resilience.rate-limiters.partner-reactive} in application.yml.
 */
@Service
public class ReactiveInvoiceClient {

	private final WebClient webClient;

	private final Environment environment;

	public ReactiveInvoiceClient(WebClient.Builder webClientBuilder, Environment environment) {
		this.webClient = webClientBuilder.build();
		this.environment = environment;
	}

	@Retryable("partner-reactive")
	@RateLimited(name = "partner-reactive", key = "#customer")
	public Mono<FetchedInvoice> fetchInvoice(String customer, long id) {
		return this.webClient.get()
			.uri(baseUrl() + "/partner/invoices/{id}", id)
			.retrieve()
			.toEntity(Invoice.class)
			.map(ReactiveInvoiceClient::fetched);
	}

	private static FetchedInvoice fetched(ResponseEntity<Invoice> response) {
		String request = response.getHeaders().getFirst(PartnerInvoiceController.REQUEST_HEADER);
		return new FetchedInvoice(response.getBody(), (request != null) ? Integer.parseInt(request) : 0);
	}

	// The partner API is served by this same application, on the port it was given at startup.
	private String baseUrl() {
		return "http://localhost:" + this.environment.getRequiredProperty("local.server.port");
	}

}
