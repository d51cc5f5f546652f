package dev.resilience.retry;

import java.time.Duration;
import java.util.Objects;

import dev.resilience.internal.DurationText;
import dev.resilience.internal.Durations;

/**
 * The delays between attempts, without jitter: a {@link Backoff} applied to a first delay, with a
 * multiplier (used by {@link Backoff#EXPONENTIAL}) and a cap on any one delay. The one backoff
 * value of the starter: retries ({@code RetryPolicy#backoff()}) and polling
 * ({@code PollSettings#backoffPolicy()}) both take their delays from it, so it lives in the package
 * both use, beside the {@link Ticker}; the {@link Backoff} enum keeps its name in
 * {@code dev.resilience.retry}, where annotations and properties name it.
 *
 * @param backoff how the delay grows
 * @param delay the first delay, zero or more
 * @param multiplier the growth factor of {@link Backoff#EXPONENTIAL}, finite and at least 1
 * @param maxDelay the cap on one delay, at least {@code delay}
 */
public record BackoffPolicy(Backoff backoff, Duration delay, double multiplier, Duration maxDelay) {

	/**
	 * Checks the settings.
	 * @throws IllegalArgumentException naming the setting that is out of range
	 * @throws NullPointerException if an argument is {@code null}
	 */
	public BackoffPolicy {
		Objects.requireNonNull(backoff, "backoff");
		Objects.requireNonNull(delay, "delay");
		Objects.requireNonNull(maxDelay, "maxDelay");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must not be negative, but was " + DurationText.of(delay));
		}
		if (!Double.isFinite(multiplier) || multiplier < 1) {
			throw new IllegalArgumentException("multiplier must be a finite number of at least 1, but was " + multiplier);
		}
		if (maxDelay.compareTo(delay) < 0) {
			throw new IllegalArgumentException("max-delay (" + DurationText.of(maxDelay)
					+ ") must not be shorter than delay (" + DurationText.of(delay) + ")");
		}
	}

	/**
	 * Returns the {@code n}-th delay: the wait after attempt {@code n} and before attempt
	 * {@code n + 1}, capped at {@link #maxDelay()}.
	 * @param n the number of the delay, 1 for the wait before the second attempt
	 * @return the delay
	 * @throws IllegalArgumentException if {@code n} is less than 1
	 */
	public Duration delayAfter(int n) {
		if (n < 1) {
			throw new IllegalArgumentException("The first delay is number 1, but " + n + " was asked for");
		}
		double nanos = Durations.saturatedNanos(this.delay) * factor(n);
		long maxNanos = Durations.saturatedNanos(this.maxDelay);
		return (nanos >= maxNanos) ? this.maxDelay : Duration.ofNanos((long) nanos);
	}

	/** The factor by which the first delay is multiplied for the {@code n}-th delay, {@code n >= 1}. */
	private double factor(int n) {
		return switch (this.backoff) {
			case FIXED -> 1;
			case LINEAR -> n;
			case EXPONENTIAL -> Math.pow(this.multiplier, n - 1);
		};
	}

}
