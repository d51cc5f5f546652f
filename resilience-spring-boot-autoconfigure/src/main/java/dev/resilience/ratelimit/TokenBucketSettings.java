package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.Objects;

import dev.resilience.internal.DurationText;
import dev.resilience.internal.Durations;

/**
 * The settings of a token bucket.
 *
 * @param capacity the most tokens the bucket holds, which is the largest burst it admits
 * @param refillTokens how many tokens are added per {@code refillPeriod}
 * @param refillPeriod the period over which {@code refillTokens} are added
 * @param refillStrategy whether tokens arrive continuously or once per whole period
 */
public record TokenBucketSettings(long capacity, long refillTokens, Duration refillPeriod,
		RefillStrategy refillStrategy) {

	/**
	 * Checks the settings.
	 * @param capacity see the record component
	 * @param refillTokens see the record component
	 * @param refillPeriod see the record component
	 * @param refillStrategy see the record component
	 * @throws IllegalArgumentException if a number or the period is not positive
	 */
	public TokenBucketSettings {
		Objects.requireNonNull(refillPeriod, "refillPeriod");
		Objects.requireNonNull(refillStrategy, "refillStrategy");
		if (capacity <= 0) {
			throw new IllegalArgumentException("token-bucket.capacity must be positive but was " + capacity);
		}
		if (refillTokens <= 0) {
			throw new IllegalArgumentException("token-bucket.refill-tokens must be positive but was " + refillTokens);
		}
		if (refillPeriod.isNegative() || refillPeriod.isZero()) {
			throw new IllegalArgumentException(
					"token-bucket.refill-period must be positive but was " + DurationText.of(refillPeriod));
		}
	}

	/**
	 * Returns the refill period in nanoseconds.
	 * @return the refill period in nanoseconds
	 */
	public long refillPeriodNanos() {
		return Durations.saturatedNanos(this.refillPeriod);
	}

}
