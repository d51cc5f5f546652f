package dev.resilience.autoconfigure.web.client;

import java.io.IOException;
import java.time.Clock;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

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
 * limiter has {@code pause-on-throttle}. Requests to other hosts pass untouched. A rejected request
 * is not sent: {@link RateLimitExceededException} is thrown instead.
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
		Permit permit = limiter.acquire(key, 1, limiter.getSettings().maxWait());
		ClientHttpResponse response;
		try {
			response = new PermitReleasingResponse(execution.execute(request, body), permit);
		}
		catch (IOException | RuntimeException | Error ex) {
			permit.close();
			throw ex;
		}
		try {
			Throttle throttle = route.throttle(response.getStatusCode().value(), response.getHeaders()::getFirst,
					this.clock);
			if (throttle != null) {
				pause(limiter, key, throttle);
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
