package dev.resilience.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * Everything one limiter remembers about one key: its token bucket, its windows (in the order of
 * {@link RateLimiterSettings#windows()}) and its concurrency permits. Immutable; the array is
 * never modified after construction.
 */
record LimiterState(TokenBucket.@Nullable State bucket, SlidingWindow[] windows, Leases leases) {

	static LimiterState initial(RateLimiterSettings settings, long now) {
		TokenBucketSettings bucket = settings.tokenBucket();
		SlidingWindow[] windows = new SlidingWindow[settings.windows().size()];
		for (int i = 0; i < windows.length; i++) {
			windows[i] = SlidingWindow.empty(settings.windowAlgorithm(), now);
		}
		return new LimiterState((bucket != null) ? TokenBucket.full(bucket, now) : null, windows, Leases.NONE);
	}

	LimiterState prune(RateLimiterSettings settings, long now) {
		SlidingWindow[] pruned = this.windows.clone();
		for (int i = 0; i < pruned.length; i++) {
			pruned[i] = pruned[i].prune(settings.windows().get(i), now);
		}
		return new LimiterState(this.bucket, pruned, this.leases.prune(now));
	}

	/** The time from which this state equals a fresh one, so the key may be forgotten. */
	long idleAt(RateLimiterSettings settings) {
		long idle = this.leases.idleAt();
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		if (bucketSettings != null && this.bucket != null) {
			idle = Math.max(idle, TokenBucket.fullAt(bucketSettings, this.bucket));
		}
		for (int i = 0; i < this.windows.length; i++) {
			idle = Math.max(idle, this.windows[i].idleAt(settings.windows().get(i)));
		}
		return idle;
	}

}
