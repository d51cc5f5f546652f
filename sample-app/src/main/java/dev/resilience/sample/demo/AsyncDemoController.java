package dev.resilience.sample.demo;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.retry.RetriesExhaustedException;
import dev.resilience.retry.RetryAttempt;
import dev.resilience.sample.client.AsyncInvoiceClient;
import dev.resilience.sample.client.FetchedInvoice;
import dev.resilience.sample.client.PartnerStatusException;
import dev.resilience.sample.client.ReactiveInvoiceClient;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The asynchronous clients, one request each, answered without a request thread waiting:
 * {@code GET /demo/reactive/invoices/{id}?customer=C} through the {@code WebClient} client that
 * returns a {@code Mono}, limited per customer (a rejection is answered {@code 429} by the
 * starter), and {@code GET /demo/async/invoices/{id}} through the {@code CompletableFuture}
 * client. Both retry the partner's {@code 503} and {@code 429}; the answer's
 * {@code partnerRequest} shows which request got through. A call that exhausts its retries
 * (invoice 11) is answered {@code 502} with its history of attempts.
 * {@code GET /demo/reactive/burst?calls=8&customer=C} assembles {@code calls} {@code Mono}s first,
 * which consumes nothing, then subscribes to them all at once: the customer's limit admits 5.
 */
@RestController
@RequestMapping("/demo")
public class AsyncDemoController {

	private static final int MAX_CALLS = 100;

	// An invoice the partner serves at once, so a burst shows the limiter alone.
	private static final long BURST_INVOICE = 1;

	private final ReactiveInvoiceClient reactiveClient;

	private final AsyncInvoiceClient asyncClient;

	public AsyncDemoController(ReactiveInvoiceClient reactiveClient, AsyncInvoiceClient asyncClient) {
		this.reactiveClient = reactiveClient;
		this.asyncClient = asyncClient;
	}

	@GetMapping("/reactive/invoices/{id}")
	public Mono<FetchedInvoice> reactiveInvoice(@PathVariable long id,
			@RequestParam(defaultValue = "demo-customer") String customer) {
		return this.reactiveClient.fetchInvoice(customer, id);
	}

	@GetMapping("/reactive/burst")
	public Mono<ReactiveBurstReport> reactiveBurst(@RequestParam(defaultValue = "8") int calls,
			@RequestParam(defaultValue = "burst-customer") String customer) {
		if (calls < 1 || calls > MAX_CALLS) {
			throw new IllegalArgumentException("calls must be between 1 and " + MAX_CALLS + " but was " + calls);
		}
		// Assembling asks the limiter nothing: each Mono is decided when it is subscribed.
		List<Mono<FetchedInvoice>> assembled = IntStream.range(0, calls)
			.mapToObj((call) -> this.reactiveClient.fetchInvoice(customer, BURST_INVOICE))
			.toList();
		return Flux.fromIterable(assembled)
			.flatMap((mono) -> mono.map((fetched) -> "fetched")
				.onErrorResume(RateLimitExceededException.class, (rejected) -> Mono
					.just("rejected, retry after " + rejected.getRetryAfter().toMillis() + "ms")))
			.collectList()
			.map((outcomes) -> {
				int fetched = (int) outcomes.stream().filter("fetched"::equals).count();
				return new ReactiveBurstReport(calls, fetched, calls - fetched, outcomes);
			});
	}

	@GetMapping("/async/invoices/{id}")
	public CompletableFuture<FetchedInvoice> asyncInvoice(@PathVariable long id) {
		return this.asyncClient.fetchInvoice(id);
	}

	/**
	 * Answers a call that the partner kept failing: {@code 502} with the attempts made.
	 * @param failure the partner's last answer
	 * @return the problem
	 */
	@ExceptionHandler({ WebClientResponseException.class, PartnerStatusException.class })
	public ProblemDetail partnerFailed(RuntimeException failure) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_GATEWAY, failure.getMessage());
		RetriesExhaustedException exhausted = RetriesExhaustedException.of(failure);
		if (exhausted != null) {
			problem.setProperty("retries", exhausted.getMessage());
			problem.setProperty("history", exhausted.getAttempts().stream().map(RetryAttempt::toString).toList());
		}
		return problem;
	}

}
