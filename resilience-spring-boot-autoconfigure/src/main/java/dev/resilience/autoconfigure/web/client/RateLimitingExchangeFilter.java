package dev.resilience.autoconfigure.web.client;

import java.net.URI;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

import reactor.core.publisher.Mono;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpRequest;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;

import dev.resilience.autoconfigure.ratelimit.AdmittedLimiters;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.Throttle;

/**
 * Puts the requests of a {@code WebClient} to the hosts of
 * {@code resilience.rate-limiters.<name>.http-client.hosts} under that limiter, never holding a
 * thread: each subscription is decided anew (assembling the request consumes nothing), a wait
 * within the limiter's {@code max-wait} is scheduled on the starter's scheduler, the concurrency
 * permit is held until the response's body ends (is read, released, fails or is cancelled) and
 * returned once, and the response is read for the partner's throttle signals, which pause the
 * request's key when the limiter has {@code pause-on-throttle}. When the limiter's
 * {@code max-concurrent} is adaptive, an answer whose status is in
 * {@code pause-on-throttle.statuses}, or an exchange that times out, records a drop on the permit
 * before it is returned. Requests to other hosts pass
 * untouched. A rejected request is not sent: the response fails with
 * {@link RateLimitExceededException}. A request made inside a call the same limiter already
 * admitted ({@link AdmittedLimiters}: a {@code @RateLimited} method using the client, marked on its
 * thread or in its subscription's Reactor context) is not decided again; its response is still read.
 */
public final class RateLimitingExchangeFilter implements ExchangeFilterFunction {

	private final HttpClientRoutes routes;

	private final ScheduledExecutorService scheduler;

	private final Clock clock;

	/**
	 * Creates the filter.
	 * @param routes the limiters of the hosts, read at each subscription
	 * @param scheduler runs the waits for a slot or a permit, and what follows them
	 * @param clock the clock an HTTP-date {@code Retry-After} is read against
	 */
	public RateLimitingExchangeFilter(HttpClientRoutes routes, ScheduledExecutorService scheduler, Clock clock) {
		this.routes = routes;
		this.scheduler = scheduler;
		this.clock = clock;
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		return Mono.deferContextual((context) -> {
			HttpClientRoute route = this.routes.route(request.url());
			if (route == null) {
				return next.exchange(request);
			}
			RateLimiter limiter = route.limiter();
			String key = route.key(new RequestView(request));
			if (AdmittedLimiters.isAdmitted(limiter.getName(), context)) {
				// made inside a call the limiter already admitted (an annotated method): decided once
				return next.exchange(request).flatMap((response) -> read(route, key, response, response));
			}
			// Cancelling while the decision or its wait is pending cancels the future, which gives
			// back what it took; a permit Reactor could no longer deliver is discarded, and closed.
			Mono<Permit> taken = Mono
				.fromFuture(() -> limiter.acquireAsync(key, 1, limiter.getSettings().maxWait(), this.scheduler), false)
				.doOnDiscard(Permit.class, Permit::closeAsync);
			// Held past the exchange: the response's body returns the permit when it ends. A failure
			// or a cancellation before the response is given out returns it at once.
			return Mono.usingWhen(taken,
					(permit) -> next.exchange(request)
						.flatMap((response) -> read(route, key, response, releasing(route, response, permit))),
					(permit) -> Mono.empty(), (permit, failure) -> Mono.fromRunnable(() -> {
						// a timeout tells an adaptive limit that the partner is slow
						if (route.isDrop(failure)) {
							permit.recordDrop();
						}
						permit.closeAsync();
					}), (permit) -> Mono.fromRunnable(permit::closeAsync));
		});
	}

	/**
	 * The response given out: its body, when it ends in any way, returns the permit, which has
	 * recorded a drop if the answer's status, or a timeout while its body is read, is one for the
	 * limiter's adaptive limit.
	 */
	private static ClientResponse releasing(HttpClientRoute route, ClientResponse response, Permit permit) {
		if (route.isDrop(response.statusCode().value())) {
			permit.recordDrop();
		}
		if (route.limiter().getSettings().adaptiveConcurrency() == null) {
			return response.mutate().body((body) -> body.doFinally((signal) -> permit.closeAsync())).build();
		}
		return response.mutate().body((body) -> body.doOnError((failure) -> {
			if (route.isDrop(failure)) {
				permit.recordDrop();
			}
		}).doFinally((signal) -> permit.closeAsync())).build();
	}

	/**
	 * Reads the response for a throttle signal and pauses the key before giving out the response,
	 * so that the caller's next request finds the pause.
	 */
	private Mono<ClientResponse> read(HttpClientRoute route, String key, ClientResponse received,
			ClientResponse given) {
		HttpHeaders headers = received.headers().asHttpHeaders();
		Throttle throttle = route.throttle(received.statusCode().value(), headers::getFirst, this.clock);
		if (throttle == null) {
			return Mono.just(given);
		}
		// The pause is stored even if the caller cancels meanwhile; the answer then is dropped, and
		// its body released, which returns the permit.
		return Mono.fromFuture(route.limiter().pauseAsync(key, throttle), true)
			// pause-on-throttle turned off at run time since the answer was read: nothing to pause
			.onErrorResume(IllegalStateException.class, (off) -> Mono.empty())
			.thenReturn(given)
			.doOnCancel(() -> given.releaseBody().subscribe());
	}

	/** The request as Spring's {@link HttpRequest}, which {@code http-client.key} reads as {@code #request}. */
	private record RequestView(ClientRequest request) implements HttpRequest {

		@Override
		public HttpMethod getMethod() {
			return this.request.method();
		}

		@Override
		public URI getURI() {
			return this.request.url();
		}

		@Override
		public Map<String, Object> getAttributes() {
			return this.request.attributes();
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.request.headers();
		}

	}

}
