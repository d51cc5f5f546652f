package dev.resilience;

import java.time.Duration;

/**
 * Converts durations to the nanoseconds the algorithms count in. {@link Duration#toNanos()}
 * throws for durations beyond about 292 years, which a user may well configure to mean "no
 * limit"; here they saturate instead.
 */
public final class Durations {

	private Durations() {
	}

	/**
	 * Returns the duration in nanoseconds, {@link Long#MAX_VALUE} (or {@link Long#MIN_VALUE} for
	 * a negative one) when it does not fit.
	 * @param duration the duration
	 * @return its nanoseconds, saturated
	 */
	public static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
		}
	}

}
