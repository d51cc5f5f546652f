package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.Objects;

import dev.resilience.internal.DurationText;
import dev.resilience.internal.Durations;

/**
 * A sliding window: no interval of length {@code period} may contain more than {@code limit}
 * admitted cost.
 *
 * @param limit the most cost admitted within any interval of length {@code period}
 * @param period the length of the window
 */
public record WindowSettings(long limit, Duration period) {

	/**
	 * Checks the settings.
	 * @param limit see the record component
	 * @param period see the record component
	 * @throws IllegalArgumentException if the limit or the period is not positive
	 */
	public WindowSettings {
		Objects.requireNonNull(period, "period");
		if (limit <= 0) {
			throw new IllegalArgumentException("limit must be positive but was " + limit);
		}
		if (period.isNegative() || period.isZero()) {
			throw new IllegalArgumentException("period must be positive but was " + DurationText.of(period));
		}
	}

	/**
	 * Returns the period in nanoseconds.
	 * @return the period in nanoseconds
	 */
	public long periodNanos() {
		return Durations.saturatedNanos(this.period);
	}

}
