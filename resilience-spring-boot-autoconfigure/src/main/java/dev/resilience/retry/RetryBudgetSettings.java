package dev.resilience.retry;

import java.time.Duration;
import java.util.Objects;

import dev.resilience.internal.DurationText;

/**
 * A retry budget: the retries of one policy over the last {@code window} may not exceed
 * {@code ratio} times the first attempts made over it, plus {@code minRetriesPerSecond} for
 * every second of the window, so that a quiet service can still retry (Finagle's
 * {@code RetryBudget}, gRPC's retry throttling).
 *
 * @param ratio the retries allowed per first attempt, such as {@code 0.2}; zero or more
 * @param window how far back attempts count; positive
 * @param minRetriesPerSecond the retries allowed regardless of traffic, per second of the window; zero or more
 */
public record RetryBudgetSettings(double ratio, Duration window, int minRetriesPerSecond) {

	/** The window when none is set: {@value #DEFAULT_WINDOW_SECONDS} seconds. */
	public static final long DEFAULT_WINDOW_SECONDS = 10;

	/** The retries per second allowed regardless of traffic when none is set. */
	public static final int DEFAULT_MIN_RETRIES_PER_SECOND = 10;

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	/**
	 * Checks the settings.
	 * @throws IllegalArgumentException naming the setting that is out of range
	 * @throws NullPointerException if the window is {@code null}
	 */
	public RetryBudgetSettings {
		Objects.requireNonNull(window, "window");
		if (!Double.isFinite(ratio) || ratio < 0) {
			throw new IllegalArgumentException("ratio must be a finite number of at least 0, but was " + ratio);
		}
		if (window.isNegative() || window.isZero()) {
			throw new IllegalArgumentException("window must be positive, but was " + DurationText.of(window));
		}
		if (minRetriesPerSecond < 0) {
			throw new IllegalArgumentException("min-retries-per-second must not be negative, but was " + minRetriesPerSecond);
		}
	}

	/**
	 * Returns the retries allowed per window regardless of traffic.
	 * @return {@code minRetriesPerSecond} times the window in seconds, rounded up: a quiet
	 * service keeps at least what it was promised
	 */
	public long reserve() {
		// Exact, in two parts: min * nanos would overflow a long for windows of a few years.
		long fraction = ((long) this.minRetriesPerSecond * this.window.getNano() + NANOS_PER_SECOND - 1) / NANOS_PER_SECOND;
		try {
			return Math.addExact(Math.multiplyExact(this.minRetriesPerSecond, this.window.getSeconds()), fraction);
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}
