package dev.resilience.retry;

import java.time.Duration;
import java.util.Locale;

/** Duration arithmetic of retrying: saturated nanoseconds and the seconds of messages. */
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

	/** {@code 1.53s}: seconds with two decimals. */
	static String seconds(long nanos) {
		return String.format(Locale.ROOT, "%.2fs", nanos / 1e9);
	}

}
