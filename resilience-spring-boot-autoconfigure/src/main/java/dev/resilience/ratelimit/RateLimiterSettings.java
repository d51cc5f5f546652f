package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.DurationText;

/**
 * The immutable settings of one rate limiter: its constraints, all of which must admit a call.
 * Build one with {@link #builder()}.
 *
 * @param store the name of the store that keeps the limiter's state, {@code memory} by default
 * @param tokenBucket the token bucket, or {@code null} for none
 * @param windows the sliding windows, possibly empty
 * @param windowAlgorithm how the sliding windows count
 * @param maxConcurrent the most calls in flight per key, 0 for unlimited; with adaptive concurrency
 * its {@code max-limit}
 * @param adaptiveConcurrency how the limit on calls in flight adapts to the partner, {@code null}
 * for a fixed {@code maxConcurrent}
 * @param leaseTimeout how long a concurrency permit lives when its holder never returns it
 * @param maxWait how long a caller may wait for a permit, zero to reject at once
 * @param maxKeys the most keys a store that keeps them in this JVM holds; beyond it the least
 * recently used are forgotten (and start full again)
 * @param onStoreFailure what a remote store decides when it cannot reach its server in time
 * @param pauseOnThrottle how the limiter follows its partner's throttle signals
 */
public record RateLimiterSettings(String store, @Nullable TokenBucketSettings tokenBucket, List<WindowSettings> windows,
		WindowAlgorithm windowAlgorithm, int maxConcurrent,
		@Nullable AdaptiveConcurrencySettings adaptiveConcurrency, Duration leaseTimeout, Duration maxWait, long maxKeys,
		StoreFailurePolicy onStoreFailure, PauseOnThrottleSettings pauseOnThrottle) {

	/** The store kept in this JVM's memory. */
	public static final String MEMORY_STORE = "memory";

	/** The default of {@link #maxKeys()}. */
	public static final long DEFAULT_MAX_KEYS = 1_000_000;

	/**
	 * Checks the settings; prefer {@link #builder()}.
	 * @param store see the record component
	 * @param tokenBucket see the record component
	 * @param windows see the record component
	 * @param windowAlgorithm see the record component
	 * @param maxConcurrent see the record component
	 * @param adaptiveConcurrency see the record component
	 * @param leaseTimeout see the record component
	 * @param maxWait see the record component
	 * @param maxKeys see the record component
	 * @param onStoreFailure see the record component
	 * @param pauseOnThrottle see the record component
	 * @throws IllegalArgumentException if a value is out of range, two windows have the same
	 * period, there is no constraint, or {@code maxConcurrent} is not the adaptive limit's
	 * {@code max-limit}
	 */
	public RateLimiterSettings {
		Objects.requireNonNull(store, "store");
		Objects.requireNonNull(windowAlgorithm, "windowAlgorithm");
		Objects.requireNonNull(leaseTimeout, "leaseTimeout");
		Objects.requireNonNull(maxWait, "maxWait");
		Objects.requireNonNull(onStoreFailure, "onStoreFailure");
		Objects.requireNonNull(pauseOnThrottle, "pauseOnThrottle");
		windows = List.copyOf(windows);
		if (maxConcurrent < 0) {
			throw new IllegalArgumentException("max-concurrent must be 0 (unlimited) or positive but was " + maxConcurrent);
		}
		if (adaptiveConcurrency != null && maxConcurrent != adaptiveConcurrency.maxLimit()) {
			throw new IllegalArgumentException("with adaptive concurrency, max-concurrent must be its max-limit ("
					+ adaptiveConcurrency.maxLimit() + ") but was " + maxConcurrent);
		}
		if (leaseTimeout.isNegative() || leaseTimeout.isZero()) {
			throw new IllegalArgumentException(
					"lease-timeout must be positive but was " + DurationText.of(leaseTimeout));
		}
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("max-wait must not be negative but was " + DurationText.of(maxWait));
		}
		if (maxKeys <= 0) {
			throw new IllegalArgumentException("max-keys must be positive but was " + maxKeys);
		}
		for (int i = 0; i < windows.size(); i++) {
			for (int j = 0; j < i; j++) {
				if (windows.get(i).period().equals(windows.get(j).period())) {
					throw new IllegalArgumentException("windows[" + j + "] and windows[" + i + "] both have the period "
							+ DurationText.of(windows.get(i).period())
							+ "; a limiter's windows need distinct periods (the tighter limit alone has the same effect)");
				}
			}
		}
		if (tokenBucket == null && windows.isEmpty() && maxConcurrent == 0) {
			throw new IllegalArgumentException(
					"a rate limiter needs at least one of token-bucket, windows or max-concurrent");
		}
	}

	/**
	 * Returns a builder with the defaults: memory store, exact windows, no concurrency limit,
	 * a one-minute lease timeout, no waiting, at most {@value #DEFAULT_MAX_KEYS} keys,
	 * {@link StoreFailurePolicy#FAIL_OPEN fail-open} and no pausing on throttle signals.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the largest cost that every time-based constraint could admit; calls costing more
	 * could never be admitted.
	 * @return the largest admissible cost
	 */
	public long maxCost() {
		long max = (this.tokenBucket != null) ? this.tokenBucket.capacity() : Long.MAX_VALUE;
		for (WindowSettings window : this.windows) {
			max = Math.min(max, window.limit());
		}
		return max;
	}

	/**
	 * Checks that a call of the given cost could ever be admitted.
	 * @param cost the cost of one call
	 * @throws IllegalArgumentException if the cost is not positive or exceeds {@link #maxCost()}
	 */
	public void checkCost(long cost) {
		if (cost <= 0) {
			throw new IllegalArgumentException("cost must be positive but was " + cost);
		}
		if (cost > maxCost()) {
			throw new IllegalArgumentException("cost " + cost + " exceeds " + maxCost()
					+ ", the most any constraint of this limiter admits, so the call could never be admitted");
		}
	}

	/**
	 * Builds {@link RateLimiterSettings}; each method checks its argument and {@link #build()}
	 * checks the whole.
	 */
	public static final class Builder {

		private String store = MEMORY_STORE;

		private @Nullable TokenBucketSettings tokenBucket;

		private final List<WindowSettings> windows = new ArrayList<>();

		private WindowAlgorithm windowAlgorithm = WindowAlgorithm.LOG;

		private int maxConcurrent;

		private @Nullable AdaptiveConcurrencySettings adaptiveConcurrency;

		private Duration leaseTimeout = Duration.ofMinutes(1);

		private Duration maxWait = Duration.ZERO;

		private long maxKeys = DEFAULT_MAX_KEYS;

		private StoreFailurePolicy onStoreFailure = StoreFailurePolicy.FAIL_OPEN;

		private PauseOnThrottleSettings pauseOnThrottle = PauseOnThrottleSettings.DISABLED;

		private Builder() {
		}

		/**
		 * Sets the store that keeps the limiter's state.
		 * @param store the store's name, such as {@value RateLimiterSettings#MEMORY_STORE}
		 * @return this builder
		 */
		public Builder store(String store) {
			this.store = Objects.requireNonNull(store, "store");
			return this;
		}

		/**
		 * Adds a token bucket.
		 * @param capacity the bucket size, which is the largest burst
		 * @param refillTokens tokens added per period
		 * @param refillPeriod the refill period
		 * @param strategy continuous or per-period refill
		 * @return this builder
		 * @throws IllegalArgumentException if a value is not positive
		 */
		public Builder tokenBucket(long capacity, long refillTokens, Duration refillPeriod, RefillStrategy strategy) {
			this.tokenBucket = new TokenBucketSettings(capacity, refillTokens, refillPeriod, strategy);
			return this;
		}

		/**
		 * Adds a sliding window.
		 * @param limit the most cost admitted within any interval of length {@code period}
		 * @param period the window length
		 * @return this builder
		 * @throws IllegalArgumentException if a value is not positive
		 */
		public Builder window(long limit, Duration period) {
			this.windows.add(new WindowSettings(limit, period));
			return this;
		}

		/**
		 * Sets how the sliding windows count.
		 * @param algorithm exact log or approximate counter
		 * @return this builder
		 */
		public Builder windowAlgorithm(WindowAlgorithm algorithm) {
			this.windowAlgorithm = Objects.requireNonNull(algorithm, "algorithm");
			return this;
		}

		/**
		 * Limits the calls in flight per key.
		 * @param maxConcurrent the limit, 0 for unlimited
		 * @param leaseTimeout how long a permit lives when its holder never returns it
		 * @return this builder
		 */
		public Builder maxConcurrent(int maxConcurrent, Duration leaseTimeout) {
			this.maxConcurrent = maxConcurrent;
			this.adaptiveConcurrency = null;
			this.leaseTimeout = Objects.requireNonNull(leaseTimeout, "leaseTimeout");
			return this;
		}

		/**
		 * Limits the calls in flight per key to a number that adapts to the partner
		 * ({@code max-concurrent: adaptive}); the store must keep the limit in this JVM.
		 * @param adaptiveConcurrency how the limit adapts
		 * @param leaseTimeout how long a permit lives when its holder never returns it
		 * @return this builder
		 */
		public Builder adaptiveConcurrency(AdaptiveConcurrencySettings adaptiveConcurrency, Duration leaseTimeout) {
			this.adaptiveConcurrency = Objects.requireNonNull(adaptiveConcurrency, "adaptiveConcurrency");
			this.maxConcurrent = adaptiveConcurrency.maxLimit();
			this.leaseTimeout = Objects.requireNonNull(leaseTimeout, "leaseTimeout");
			return this;
		}

		/**
		 * Sets how long a caller may wait for a permit.
		 * @param maxWait the longest wait, zero to reject at once
		 * @return this builder
		 */
		public Builder maxWait(Duration maxWait) {
			this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
			return this;
		}

		/**
		 * Sets the most keys a store in this JVM holds; the least recently used beyond it are
		 * forgotten.
		 * @param maxKeys the limit, positive
		 * @return this builder
		 */
		public Builder maxKeys(long maxKeys) {
			this.maxKeys = maxKeys;
			return this;
		}

		/**
		 * Sets what a remote store decides when it cannot reach its server in time.
		 * @param onStoreFailure admit or reject
		 * @return this builder
		 */
		public Builder onStoreFailure(StoreFailurePolicy onStoreFailure) {
			this.onStoreFailure = Objects.requireNonNull(onStoreFailure, "onStoreFailure");
			return this;
		}

		/**
		 * Sets how the limiter follows its partner's throttle signals.
		 * @param pauseOnThrottle the settings, {@link PauseOnThrottleSettings#DISABLED} by default
		 * @return this builder
		 */
		public Builder pauseOnThrottle(PauseOnThrottleSettings pauseOnThrottle) {
			this.pauseOnThrottle = Objects.requireNonNull(pauseOnThrottle, "pauseOnThrottle");
			return this;
		}

		/**
		 * Builds the settings.
		 * @return the settings
		 * @throws IllegalArgumentException if a value is out of range or there is no constraint
		 */
		public RateLimiterSettings build() {
			return new RateLimiterSettings(this.store, this.tokenBucket, this.windows, this.windowAlgorithm,
					this.maxConcurrent, this.adaptiveConcurrency, this.leaseTimeout, this.maxWait, this.maxKeys, this.onStoreFailure, this.pauseOnThrottle);
		}

	}

}
