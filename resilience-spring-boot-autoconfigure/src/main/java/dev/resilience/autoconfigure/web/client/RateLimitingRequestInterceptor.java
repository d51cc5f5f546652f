package dev.resilience.autoconfigure.web.client;

import java.io.IOException;
import java.time.Clock;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

import dev.resilience.autoconfigure.ratelimit.AdmittedLimiters;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.Throttle;

/**
 * Puts the requests of a {@code RestClient} or {@code RestTemplate} to the hosts of
 * {@code resilience.rate-limiters.<name>.http-client.hosts} under that limiter: decided before the
 * request is sent (these clients block their caller, so a wait within the limiter's
 * {@code max-wait} is slept here), the concurrency permit held until the response is closed, and
 * the response read for the partner's throttle signals, which pause the request's key when the
 * limiter has {@code pause-on-throttle}. When the limiter's {@code max-concurrent} is adaptive, an
 * answer whose status is in {@code pause-on-throttle.statuses}, or a request that times out, records
 * a drop on the permit before it is returned. Requests to other hosts pass untouched. A rejected request
 * is not sent: {@link RateLimitExceededException} is thrown instead. A request made inside a call
 * the same limiter already admitted ({@link AdmittedLimiters}: a {@code @RateLimited} method using
 * the client) is not decided again; its response is still read.
 */
public final class RateLimitingRequestInterceptor implements ClientHttpRequestInterceptor {

	private final HttpClientRoutes routes;

	private final Clock clock;

	/**
	 * Creates the interceptor.
	 * @param routes the limiters of the hosts, read at each request
	 * @param clock the clock an HTTP-date {@code Retry-After} is read against
	 */
	public RateLimitingRequestInterceptor(HttpClientRoutes routes, Clock clock) {
		this.routes = routes;
		this.clock = clock;
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		HttpClientRoute route = this.routes.route(request.getURI());
		if (route == null) {
			return execution.execute(request, body);
		}
		RateLimiter limiter = route.limiter();
		String key = route.key(request);
		// Made inside a call the limiter already admitted (an annotated method): decided once; the
		// call's own permit records a drop when its failure is read.
		if (AdmittedLimiters.isAdmitted(limiter.getName())) {
			return read(route, key, execution.execute(request, body), null);
		}
		Permit permit = limiter.acquire(key, 1, limiter.getSettings().maxWait());
		ClientHttpResponse response;
		try {
			response = execution.execute(request, body);
		}
		catch (IOException | RuntimeException | Error ex) {
			// A timeout tells an adaptive limit that the partner is slow, before the permit goes back.
			if (route.isDrop(ex)) {
				permit.recordDrop();
			}
			permit.close();
			throw ex;
		}
		// Held past the request: the response returns the permit when it is closed.
		return read(route, key, new PermitReleasingResponse(response, permit, route), permit);
	}

	/**
	 * Reads the response for a drop, recorded on the request's permit if it holds one, and for a
	 * throttle signal, which pauses the key before the response is given out, so that the
	 * caller's next request finds the pause.
	 */
	private ClientHttpResponse read(HttpClientRoute route, String key, ClientHttpResponse response,
			@Nullable Permit permit) throws IOException {
		try {
			int status = response.getStatusCode().value();
			if (permit != null && route.isDrop(status)) {
				permit.recordDrop();
			}
			Throttle throttle = route.throttle(status, response.getHeaders()::getFirst, this.clock);
			if (throttle != null) {
				pause(route.limiter(), key, throttle);
			}
		}
		catch (IOException | RuntimeException | Error ex) {
			response.close();
			throw ex;
		}
		return response;
	}

	private static void pause(RateLimiter limiter, String key, Throttle throttle) {
		try {
			limiter.pause(key, throttle);
		}
		catch (IllegalStateException ex) {
			// pause-on-throttle was turned off at run time since the answer was read: nothing to pause
		}
	}

}
