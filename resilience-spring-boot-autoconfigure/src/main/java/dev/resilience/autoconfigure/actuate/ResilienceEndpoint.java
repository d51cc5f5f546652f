package dev.resilience.autoconfigure.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

import dev.resilience.autoconfigure.web.RateLimitHeaders;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;

/**
 * The {@code resilience} endpoint: {@code GET /actuator/resilience} lists every rate limiter with
 * its settings and store; {@code GET /actuator/resilience/{limiter}?key=K} shows one key's state
 * without consuming anything, and {@code DELETE} on the same path resets that key. Without
 * {@code key}, the limiter's shared bucket (the empty key) is meant.
 */
@WebEndpoint(id = "resilience")
public class ResilienceEndpoint {

	private final RateLimiterRegistry rateLimiters;

	/**
	 * Creates the endpoint.
	 * @param rateLimiters the rate limiters to show
	 */
	public ResilienceEndpoint(RateLimiterRegistry rateLimiters) {
		this.rateLimiters = rateLimiters;
	}

	/**
	 * Lists everything the starter manages.
	 * @return the description
	 */
	@ReadOperation
	public ResilienceDescriptor resilience() {
		Map<String, RateLimiterSettings> limiters = new LinkedHashMap<>();
		this.rateLimiters.getAll().forEach((limiter) -> limiters.put(limiter.getName(), limiter.getSettings()));
		return new ResilienceDescriptor(limiters);
	}

	/**
	 * Shows one key's state without consuming anything.
	 * @param limiter the limiter's name
	 * @param key the key, or {@code null} for the shared bucket
	 * @return the state, or 404 for an unknown limiter
	 */
	@ReadOperation
	public WebEndpointResponse<KeyState> rateLimiterKey(@Selector String limiter, @Nullable String key) {
		if (!this.rateLimiters.getNames().contains(limiter)) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		RateLimiter rateLimiter = this.rateLimiters.get(limiter);
		return new WebEndpointResponse<>(KeyState.of(rateLimiter.inspect((key != null) ? key : "")));
	}

	/**
	 * Resets one key, so its next call finds full buckets and empty windows.
	 * @param limiter the limiter's name
	 * @param key the key, or {@code null} for the shared bucket
	 * @return the state after the reset, or 404 for an unknown limiter
	 */
	@DeleteOperation
	public WebEndpointResponse<KeyState> resetRateLimiterKey(@Selector String limiter, @Nullable String key) {
		if (!this.rateLimiters.getNames().contains(limiter)) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		RateLimiter rateLimiter = this.rateLimiters.get(limiter);
		String bucket = (key != null) ? key : "";
		rateLimiter.reset(bucket);
		return new WebEndpointResponse<>(KeyState.of(rateLimiter.inspect(bucket)));
	}

	/**
	 * Everything the starter manages.
	 *
	 * @param rateLimiters the rate limiters' settings by name
	 */
	public record ResilienceDescriptor(Map<String, RateLimiterSettings> rateLimiters) {
	}

	/**
	 * The state of one key of one limiter.
	 *
	 * @param limiter the limiter's name
	 * @param key the key
	 * @param remaining the quota left in the tightest constraint
	 * @param limit the quota of the tightest constraint
	 * @param inFlight the calls in flight
	 * @param maxConcurrent the limit on calls in flight, 0 for none
	 * @param quotas each token bucket and window
	 */
	public record KeyState(String limiter, String key, long remaining, long limit, int inFlight, int maxConcurrent,
			List<QuotaState> quotas) {

		static KeyState of(RateLimitDecision decision) {
			List<QuotaState> quotas = decision.getQuotas()
				.stream()
				.map((quota) -> new QuotaState(RateLimitHeaders.policyName(decision, quota), quota.quota(), quota.window(),
						quota.remaining(), quota.reset()))
				.toList();
			return new KeyState(decision.getLimiterName(), decision.getKey(), decision.getRemaining(),
					decision.getLimit(), decision.getInFlight(), decision.getMaxConcurrent(), quotas);
		}

	}

	/**
	 * One token bucket or window of a key, named as the {@code RateLimit} header fields name it.
	 *
	 * @param policy the policy name, such as {@code partner-api-5s}
	 * @param quota the calls admitted per {@code window}
	 * @param window the window, or the time a token bucket takes to refill from empty
	 * @param remaining the quota left
	 * @param reset the time until more quota becomes available
	 */
	public record QuotaState(String policy, long quota, Duration window, long remaining, Duration reset) {

	}

}
