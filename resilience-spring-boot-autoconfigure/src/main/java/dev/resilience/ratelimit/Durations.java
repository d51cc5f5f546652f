package dev.resilience.ratelimit;

import java.math.BigInteger;
import java.time.Duration;

/**
 * Time arithmetic shared by the rate-limit algorithms. Everything is in nanoseconds on the
 * store's clock; products that could overflow a {@code long} fall back to exact big-integer math.
 */
final class Durations {

	private Durations() {
	}

	/** Converts to nanoseconds, saturating instead of overflowing for very long durations. */
	static long toNanos(Duration duration) {
		return dev.resilience.Durations.saturatedNanos(duration);
	}

	/** Returns {@code ceil(a * b / c)} for non-negative {@code a}, {@code b} and positive {@code c}. */
	static long mulDivCeil(long a, long b, long c) {
		if (Math.multiplyHigh(a, b) == 0 && a * b >= 0) {
			long product = a * b;
			long quotient = product / c;
			return (product % c == 0) ? quotient : quotient + 1;
		}
		BigInteger[] division = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divideAndRemainder(BigInteger.valueOf(c));
		return saturate(division[1].signum() == 0 ? division[0] : division[0].add(BigInteger.ONE));
	}

	/** Returns {@code floor(a * b / c)} for non-negative {@code a}, {@code b} and positive {@code c}. */
	static long mulDivFloor(long a, long b, long c) {
		if (Math.multiplyHigh(a, b) == 0 && a * b >= 0) {
			return a * b / c;
		}
		return saturate(BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divide(BigInteger.valueOf(c)));
	}

	/** Adds without overflowing past {@link Long#MAX_VALUE}. */
	static long saturatedAdd(long a, long b) {
		long sum = a + b;
		return (((a ^ sum) & (b ^ sum)) < 0) ? ((a < 0) ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
	}

	private static long saturate(BigInteger value) {
		return (value.bitLength() < 64) ? value.longValue() : Long.MAX_VALUE;
	}

}
