package dev.resilience.retry;

import java.time.Duration;

/** Duration arithmetic of retrying: saturated nanoseconds. */
final class Durations {

	private Durations() {
	}

	/** The duration in nanoseconds, {@link Long#MAX_VALUE} when it does not fit. */
	static long nanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}
