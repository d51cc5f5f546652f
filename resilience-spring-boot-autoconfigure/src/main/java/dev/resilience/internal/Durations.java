package dev.resilience.internal;

import java.math.BigInteger;
import java.time.Duration;

/**
 * Time arithmetic in the nanoseconds the algorithms count in. {@link Duration#toNanos()}
 * throws for durations beyond about 292 years, which a user may well configure to mean "no
 * limit"; here they saturate instead, and products that could overflow a {@code long} fall back
 * to exact big-integer math.
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

	/**
	 * Returns {@code ceil(a * b / c)}, saturated at {@link Long#MAX_VALUE}.
	 * @param a a non-negative factor
	 * @param b a non-negative factor
	 * @param c a positive divisor
	 * @return the quotient rounded up
	 */
	public static long mulDivCeil(long a, long b, long c) {
		if (Math.multiplyHigh(a, b) == 0 && a * b >= 0) {
			long product = a * b;
			long quotient = product / c;
			return (product % c == 0) ? quotient : quotient + 1;
		}
		BigInteger[] division = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divideAndRemainder(BigInteger.valueOf(c));
		return saturate(division[1].signum() == 0 ? division[0] : division[0].add(BigInteger.ONE));
	}

	/**
	 * Returns {@code floor(a * b / c)}, saturated at {@link Long#MAX_VALUE}.
	 * @param a a non-negative factor
	 * @param b a non-negative factor
	 * @param c a positive divisor
	 * @return the quotient rounded down
	 */
	public static long mulDivFloor(long a, long b, long c) {
		if (Math.multiplyHigh(a, b) == 0 && a * b >= 0) {
			return a * b / c;
		}
		return saturate(BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divide(BigInteger.valueOf(c)));
	}

	/**
	 * Returns whether {@code a * b >= c * d}, exactly, without dividing: a division costs a
	 * decision more than the rest of its arithmetic.
	 * @param a a non-negative factor
	 * @param b a non-negative factor
	 * @param c a non-negative factor
	 * @param d a non-negative factor
	 * @return whether the first product is at least the second
	 */
	public static boolean productAtLeast(long a, long b, long c, long d) {
		// Compared as 128-bit numbers: non-negative products have a non-negative high half.
		long high = Math.multiplyHigh(a, b);
		long otherHigh = Math.multiplyHigh(c, d);
		return (high != otherHigh) ? high > otherHigh : Long.compareUnsigned(a * b, c * d) >= 0;
	}

	/**
	 * Adds without overflowing past {@link Long#MAX_VALUE} or {@link Long#MIN_VALUE}.
	 * @param a a summand
	 * @param b a summand
	 * @return the sum, saturated
	 */
	public static long saturatedAdd(long a, long b) {
		long sum = a + b;
		return (((a ^ sum) & (b ^ sum)) < 0) ? ((a < 0) ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
	}

	/**
	 * Adds two durations without throwing: a sum past the longest (or shortest) {@link Duration}
	 * is that duration.
	 * @param a a summand
	 * @param b a summand
	 * @return the sum, saturated
	 */
	public static Duration saturatedPlus(Duration a, Duration b) {
		try {
			return a.plus(b);
		}
		catch (ArithmeticException ex) {
			return b.isNegative() ? Duration.ofSeconds(Long.MIN_VALUE) : Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
		}
	}

	private static long saturate(BigInteger value) {
		return (value.bitLength() < 64) ? value.longValue() : Long.MAX_VALUE;
	}

}
