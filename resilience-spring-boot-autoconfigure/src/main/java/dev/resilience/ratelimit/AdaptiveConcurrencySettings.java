package dev.resilience.ratelimit;

import java.util.Objects;

/**
 * How a limiter with {@code max-concurrent: adaptive} finds how many calls in flight its partner
 * serves well (SPEC §11). The limit is kept per key and per instance: it grows while the latency
 * of admitted calls stays near the lowest seen, and shrinks when latency rises or a call ends
 * with a drop ({@link Permit#recordDrop()}: a throttle signal or a timeout).
 *
 * @param algorithm the algorithm that proposes the limit
 * @param initialLimit the limit of a key before any call of it ended
 * @param minLimit the lowest the limit goes
 * @param maxLimit the highest the limit goes
 */
public record AdaptiveConcurrencySettings(Algorithm algorithm, int initialLimit, int minLimit, int maxLimit) {

	/** The defaults: {@code gradient}, starting at 10, between 1 and 200. */
	public static final AdaptiveConcurrencySettings DEFAULTS = new AdaptiveConcurrencySettings(Algorithm.GRADIENT, 10,
			1, 200);

	/**
	 * Checks the settings.
	 * @param algorithm see the record component
	 * @param initialLimit see the record component
	 * @param minLimit see the record component
	 * @param maxLimit see the record component
	 * @throws IllegalArgumentException unless {@code 1 <= min-limit <= initial-limit <= max-limit}
	 */
	public AdaptiveConcurrencySettings {
		Objects.requireNonNull(algorithm, "algorithm");
		if (minLimit < 1) {
			throw new IllegalArgumentException(
					"adaptive-concurrency.min-limit must be at least 1 but was " + minLimit);
		}
		if (maxLimit < minLimit) {
			throw new IllegalArgumentException("adaptive-concurrency.max-limit (" + maxLimit
					+ ") must not be below adaptive-concurrency.min-limit (" + minLimit + ")");
		}
		if (initialLimit < minLimit || initialLimit > maxLimit) {
			throw new IllegalArgumentException("adaptive-concurrency.initial-limit (" + initialLimit
					+ ") must lie between adaptive-concurrency.min-limit (" + minLimit
					+ ") and adaptive-concurrency.max-limit (" + maxLimit + ")");
		}
	}

	/**
	 * The algorithms of Netflix's concurrency-limits library that propose the limit.
	 */
	public enum Algorithm {

		/**
		 * Gradient2: compares each call's latency with a long-term average; the default.
		 */
		GRADIENT,

		/**
		 * TCP Vegas: estimates the partner's queue from each call's latency and the lowest seen.
		 */
		VEGAS,

		/**
		 * Additive increase, multiplicative decrease on drops.
		 */
		AIMD

	}

}
