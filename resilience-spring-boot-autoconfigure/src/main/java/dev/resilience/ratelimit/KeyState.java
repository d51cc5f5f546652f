package dev.resilience.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * Everything one limiter remembers about one key: its token bucket, its windows (in the order of
 * {@link RateLimiterSettings#windows()}) and its concurrency permits. Mutable, and guarded by its
 * own monitor: a decision locks only its key, so calls for different keys never contend, and
 * nothing is allocated to change the state. Waiters for a returned permit wait on the monitor too.
 * <p>
 * Fields are laid out for a small footprint: a bucket-only key holds two longs of bucket, the
 * clock, a counter and two null references.
 */
final class KeyState {

	/** The bucket's tokens at {@link #updatedAt}; unused without a token bucket. */
	long tokens;

	long updatedAt;

	/**
	 * How often the bucket filled up to capacity. Once it did, a call taken before is absorbed:
	 * had it not happened, the bucket would have been just as full, so there is nothing to give
	 * back.
	 */
	int fills;

	/**
	 * The latest time a decision used. The clock is read before the lock is taken, so a caller
	 * may arrive with a reading older than one already used; it is raised to this one, which is
	 * certainly past when the caller holds the lock.
	 */
	long clock;

	/** The sequence number of the last admitted call, which names its window entries and lease. */
	long admissions;

	final SlidingWindow @Nullable [] windows;

	final @Nullable Leases leases;

	/** Callers waiting on this monitor for a permit to be returned. */
	int permitWaiters;

	KeyState(RateLimiterSettings settings, long now) {
		TokenBucketSettings bucket = settings.tokenBucket();
		if (bucket != null) {
			setBucket(TokenBucket.full(bucket, now));
		}
		this.clock = now;
		int windowCount = settings.windows().size();
		if (windowCount > 0) {
			this.windows = new SlidingWindow[windowCount];
			for (int i = 0; i < windowCount; i++) {
				this.windows[i] = SlidingWindow.create(settings.windowAlgorithm(), now);
			}
		}
		else {
			this.windows = null;
		}
		this.leases = (settings.maxConcurrent() > 0) ? new Leases() : null;
	}

	/** Returns the time to decide at: the reading, or the latest one already used if later. */
	long observe(long reading) {
		if (reading > this.clock) {
			this.clock = reading;
		}
		return this.clock;
	}

	TokenBucket.State bucket() {
		return new TokenBucket.State(this.tokens, this.updatedAt);
	}

	void setBucket(TokenBucket.State bucket) {
		this.tokens = bucket.tokens();
		this.updatedAt = bucket.updatedAt();
	}

}
