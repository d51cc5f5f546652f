package dev.resilience.internal;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;

/**
 * Prints a duration for a message: milliseconds under a second ({@code 100ms}, {@code 0.5ms}),
 * seconds from one second on ({@code 1.53s}, {@code 90s}), with at most two decimals. Retries and
 * polls print their {@code Tried 4 times over 1.53s} with it.
 */
public final class DurationText {

	private static final long NANOS_PER_SECOND = 1_000_000_000L;

	private DurationText() {
	}

	/**
	 * Prints a duration.
	 * @param duration the duration, zero or more
	 * @return the text, such as {@code 100ms} or {@code 1.53s}
	 */
	public static String of(Duration duration) {
		BigDecimal nanos = new BigDecimal(duration.getSeconds()).multiply(BigDecimal.valueOf(NANOS_PER_SECOND))
			.add(BigDecimal.valueOf(duration.getNano()));
		boolean seconds = duration.getSeconds() > 0;
		BigDecimal value = nanos.movePointLeft(seconds ? 9 : 6).setScale(2, RoundingMode.HALF_UP).stripTrailingZeros();
		return value.toPlainString() + (seconds ? "s" : "ms");
	}

}
