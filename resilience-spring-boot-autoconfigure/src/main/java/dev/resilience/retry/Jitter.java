package dev.resilience.retry;

/**
 * How a delay is randomised so that callers who failed together do not retry together, as the
 * AWS Architecture Blog's "Exponential Backoff and Jitter" (Marc Brooker, 2015) defines the
 * variants. For the backoff's delay {@code d}, the first delay {@code base}, the cap
 * {@code maxDelay} and the previous jittered delay {@code previous}:
 * <ul>
 * <li>{@link #NONE}: {@code d};</li>
 * <li>{@link #FULL}: {@code random_between(0, d)};</li>
 * <li>{@link #EQUAL}: {@code d / 2 + random_between(0, d / 2)};</li>
 * <li>{@link #DECORRELATED}: {@code min(maxDelay, random_between(base, previous * 3))}, where
 * {@code previous} is {@code base} before the first retry; it ignores {@code d}, as the article's
 * does.</li>
 * </ul>
 * {@code random_between(a, b)} is {@code a + r * (b - a)} for a random {@code r} in {@code [0, 1)}.
 */
public enum Jitter {

	/** The backoff's delay as it is. */
	NONE {
		@Override
		long apply(long delay, long previous, long base, long cap, double random) {
			return delay;
		}
	},

	/** A random delay between zero and the backoff's delay. */
	FULL {
		@Override
		long apply(long delay, long previous, long base, long cap, double random) {
			return between(0, delay, random);
		}
	},

	/** Half the backoff's delay, plus a random delay up to the other half. */
	EQUAL {
		@Override
		long apply(long delay, long previous, long base, long cap, double random) {
			long half = delay / 2;
			return half + between(0, delay - half, random);
		}
	},

	/** A random delay between the first delay and three times the previous one, capped. */
	DECORRELATED {
		@Override
		long apply(long delay, long previous, long base, long cap, double random) {
			long upper = (previous > Long.MAX_VALUE / 3) ? Long.MAX_VALUE : previous * 3;
			return Math.min(cap, between(base, Math.max(base, upper), random));
		}
	};

	/**
	 * Returns the jittered delay in nanoseconds.
	 * @param delay the backoff's delay
	 * @param previous the previous jittered delay, or {@code base} before the first retry
	 * @param base the first delay of the backoff
	 * @param cap the longest delay
	 * @param random a random number in {@code [0, 1)}
	 */
	abstract long apply(long delay, long previous, long base, long cap, double random);

	private static long between(long low, long high, double random) {
		return low + (long) ((high - low) * random);
	}

}
