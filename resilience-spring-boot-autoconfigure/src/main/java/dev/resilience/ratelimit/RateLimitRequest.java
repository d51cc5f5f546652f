package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.Objects;

import dev.resilience.internal.DurationText;

/**
 * One limiter's part of a call admitted by several limiters at once, see
 * {@link RateLimiterRegistry#acquireAll(java.util.List)}.
 *
 * @param limiter the limiter
 * @param key the bucket
 * @param cost the tokens (and window slots) the call consumes
 * @param maxWait the longest this limiter lets the call wait
 */
public record RateLimitRequest(RateLimiter limiter, String key, int cost, Duration maxWait) {

	/**
	 * Checks the request.
	 * @param limiter see the record component
	 * @param key see the record component
	 * @param cost see the record component
	 * @param maxWait see the record component
	 * @throws IllegalArgumentException if the cost could never be admitted or the wait is negative
	 */
	public RateLimitRequest {
		Objects.requireNonNull(limiter, "limiter");
		Objects.requireNonNull(key, "key");
		Objects.requireNonNull(maxWait, "maxWait");
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must not be negative but was " + DurationText.of(maxWait));
		}
		try {
			limiter.getSettings().checkCost(cost);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Rate limiter '" + limiter.getName() + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * Describes the request without its key, which stays in the process ({@link #key()}).
	 * @return the description
	 */
	@Override
	public String toString() {
		return "RateLimitRequest[limiter=" + this.limiter.getName() + ", cost=" + this.cost + ", maxWait="
				+ this.maxWait + "]";
	}

}
