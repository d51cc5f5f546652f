package dev.resilience.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;

/**
 * Writes a duration the one way the starter writes it everywhere, in messages, events and the
 * Actuator endpoint: as {@code application.yml} takes it, rounded to the millisecond, a whole
 * number in the largest unit that holds it exactly ({@code 250ms}, {@code 1530ms}, {@code 5s},
 * {@code 2m}, {@code 1h}, {@code 1d}). Spring Boot's simple duration format takes only whole
 * numbers, so {@code 1.53s} would not read back; {@code 1530ms} does.
 * <p>
 * Not API: public only so that every capability package can reach it.
 */
public final class DurationText {

	private static final BigInteger[] UNIT_MILLIS = { BigInteger.valueOf(86_400_000L),
			BigInteger.valueOf(3_600_000L), BigInteger.valueOf(60_000L), BigInteger.valueOf(1_000L) };

	private static final String[] UNIT_SUFFIXES = { "d", "h", "m", "s" };

	private DurationText() {
	}

	/**
	 * Writes a duration.
	 * @param duration the duration; a negative one is written with a minus sign, as a message
	 * about a wrong value needs
	 * @return the text, such as {@code 100ms}, {@code 1530ms} or {@code 2m}
	 */
	public static String of(Duration duration) {
		// Big numbers: half a millisecond rounds up exactly, and the longest duration (a poll's sum
		// of absurd delays) has more milliseconds than a long holds.
		BigInteger millis = BigDecimal.valueOf(duration.getSeconds())
			.movePointRight(9)
			.add(BigDecimal.valueOf(duration.getNano()))
			.movePointLeft(6)
			.setScale(0, RoundingMode.HALF_UP)
			.toBigIntegerExact();
		if (millis.signum() != 0) {
			for (int i = 0; i < UNIT_MILLIS.length; i++) {
				BigInteger[] units = millis.divideAndRemainder(UNIT_MILLIS[i]);
				if (units[1].signum() == 0) {
					return units[0] + UNIT_SUFFIXES[i];
				}
			}
		}
		return millis + "ms";
	}

}
