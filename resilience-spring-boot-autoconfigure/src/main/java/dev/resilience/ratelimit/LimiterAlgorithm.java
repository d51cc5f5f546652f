package dev.resilience.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * One atomic decision over every constraint of a limiter, as a function of the settings, the
 * key's state and the time; the caller holds the key's lock. A call is admitted at the earliest
 * time every constraint admits it; since each constraint only ever admits more as time passes,
 * that is the latest of their individual earliest times. A rejected call changes nothing.
 */
final class LimiterAlgorithm {

	/** The shortest Retry-After for want of a permit: asking again sooner is pointless. */
	static final long MIN_PERMIT_RETRY_NANOS = 1_000_000;

	private LimiterAlgorithm() {
	}

	/**
	 * Decides one call. With {@code commit} false, only tells what would be decided.
	 * @param reading the clock reading taken before the lock
	 * @param typicalHoldNanos how long permits were recently held, 0 when unknown
	 * @param ticket filled in when the call is admitted and may be given back, or {@code null}
	 */
	static RateLimitDecision decide(String name, String key, RateLimiterSettings settings, KeyState state,
			long reading, long cost, long maxWaitNanos, long typicalHoldNanos, boolean commit, @Nullable Ticket ticket) {
		long now = state.observe(reading);
		prune(settings, state, now);
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		long at = now;
		TokenBucket.State refilled = null;
		if (bucketSettings != null) {
			refilled = TokenBucket.refill(bucketSettings, state.bucket(), now);
			if (refilled.updatedAt() > now || refilled.tokens() < cost) {
				at = TokenBucket.availableAt(bucketSettings, refilled, now, cost);
			}
		}
		SlidingWindow[] windows = state.windows;
		if (windows != null) {
			for (int i = 0; i < windows.length; i++) {
				at = Math.max(at, windows[i].availableAt(settings.windows().get(i), now, cost));
			}
		}
		long wait = at - now;
		Leases leases = state.leases;
		boolean concurrencyFull = leases != null && leases.size() >= settings.maxConcurrent();
		if (concurrencyFull || wait > maxWaitNanos || !commit) {
			boolean permitted = !concurrencyFull && wait <= maxWaitNanos;
			long retryAfter = (!concurrencyFull) ? wait
					: Math.max(wait, permitEstimate(settings, leases, now, typicalHoldNanos));
			return describe(name, key, settings, state, now, permitted, 0, permitted ? 0 : retryAfter,
					concurrencyFull && wait <= maxWaitNanos);
		}
		if (refilled != null) {
			// The bucket is refilled to "now" already: again only for a call that waits.
			TokenBucket.State before = state.bucket();
			if (at != now) {
				refilled = TokenBucket.refill(bucketSettings, before, at);
			}
			if (refilled.tokens() == bucketSettings.capacity() && before.tokens() < bucketSettings.capacity()) {
				state.fills++;
			}
			state.tokens = refilled.tokens() - cost;
			state.updatedAt = refilled.updatedAt();
			if (ticket != null) {
				ticket.tokensBefore = before.tokens();
				ticket.updatedAtBefore = before.updatedAt();
				ticket.tokensAfter = state.tokens;
				ticket.updatedAtAfter = state.updatedAt;
				ticket.fillsAfter = state.fills;
			}
		}
		long sequence = ++state.admissions;
		if (windows != null) {
			for (int i = 0; i < windows.length; i++) {
				windows[i].add(settings.windows().get(i), at, cost, sequence);
			}
		}
		if (leases != null) {
			leases.add(sequence, at);
		}
		if (ticket != null) {
			ticket.sequence = sequence;
			ticket.cost = cost;
			ticket.at = at;
		}
		return describe(name, key, settings, state, at, true, wait, 0, false);
	}

	/**
	 * Decides a call admitted now or not at all by a limiter that has only a token bucket: the
	 * shortest path, which holds the key's lock only for the arithmetic and builds the answer
	 * after.
	 */
	static RateLimitDecision tryBucketOnly(String name, String key, RateLimiterSettings settings,
			TokenBucketSettings bucket, KeyState state, long reading, long cost) {
		long now;
		TokenBucket.State after;
		boolean permitted;
		synchronized (state) {
			now = state.observe(reading);
			TokenBucket.State before = state.bucket();
			after = TokenBucket.refill(bucket, before, now);
			permitted = after.updatedAt() <= now && after.tokens() >= cost;
			if (permitted) {
				if (after.tokens() == bucket.capacity() && before.tokens() < bucket.capacity()) {
					state.fills++;
				}
				after = new TokenBucket.State(after.tokens() - cost, after.updatedAt());
				state.setBucket(after);
			}
		}
		long retryAfter = permitted ? 0 : TokenBucket.availableAt(bucket, after, now, cost) - now;
		return new RateLimitDecision(name, key, permitted, 0, retryAfter, false, 0, settings, now, after.tokens(),
				after.updatedAt(), null);
	}

	private static void prune(RateLimiterSettings settings, KeyState state, long now) {
		SlidingWindow[] windows = state.windows;
		if (windows != null) {
			for (int i = 0; i < windows.length; i++) {
				windows[i].prune(settings.windows().get(i), now);
			}
		}
		if (state.leases != null) {
			state.leases.prune(now, Durations.toNanos(settings.leaseTimeout()));
		}
	}

	/**
	 * When a permit is likely back: the typical hold time minus how long the oldest holder has
	 * held its permit (or another typical hold time when it is overdue), at least
	 * {@link #MIN_PERMIT_RETRY_NANOS}, and never later than the oldest lease expires. Before any
	 * permit was returned, the time the oldest holder has held it so far.
	 */
	private static long permitEstimate(RateLimiterSettings settings, Leases leases, long now, long typicalHoldNanos) {
		long held = Math.max(0, now - leases.oldestStart());
		long expiresIn = Durations.saturatedAdd(leases.oldestStart(), Durations.toNanos(settings.leaseTimeout())) - now;
		long estimate;
		if (typicalHoldNanos <= 0) {
			estimate = held;
		}
		else {
			estimate = (typicalHoldNanos > held) ? typicalHoldNanos - held : typicalHoldNanos;
		}
		return Math.min(Math.max(estimate, MIN_PERMIT_RETRY_NANOS), expiresIn);
	}

	/**
	 * Undoes an admitted call: its tokens, window entries and permit, as if it had not happened,
	 * whatever others did meanwhile. When nobody touched the bucket since, it is restored exactly.
	 * Otherwise the tokens go back on top of what others left, unless the bucket filled up since:
	 * then it would have been just as full without the call, and there is nothing to give back.
	 * @return when the permit was taken, or {@link Long#MIN_VALUE} when it was not held
	 */
	static long giveBack(RateLimiterSettings settings, KeyState state, Ticket ticket, long reading) {
		long now = state.observe(reading);
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		if (bucketSettings != null) {
			if (state.tokens == ticket.tokensAfter && state.updatedAt == ticket.updatedAtAfter) {
				state.tokens = ticket.tokensBefore;
				state.updatedAt = ticket.updatedAtBefore;
			}
			else {
				TokenBucket.State before = state.bucket();
				TokenBucket.State refilled = TokenBucket.refill(bucketSettings, before, now);
				if (refilled.tokens() == bucketSettings.capacity() && before.tokens() < bucketSettings.capacity()) {
					state.fills++;
				}
				state.setBucket(refilled);
				if (state.fills == ticket.fillsAfter) {
					state.tokens = Math.min(bucketSettings.capacity(), state.tokens + ticket.cost);
				}
			}
		}
		SlidingWindow[] windows = state.windows;
		if (windows != null) {
			for (int i = 0; i < windows.length; i++) {
				windows[i].remove(settings.windows().get(i), ticket.sequence, ticket.cost, ticket.at);
			}
		}
		return (state.leases != null) ? state.leases.remove(ticket.sequence) : Long.MIN_VALUE;
	}

	/**
	 * Returns a concurrency permit.
	 * @return when the permit was taken, or {@link Long#MIN_VALUE} when it was not held
	 */
	static long release(KeyState state, long sequence) {
		return (state.leases != null) ? state.leases.remove(sequence) : Long.MIN_VALUE;
	}

	/** The state of a key at {@code now}, consuming nothing; permitted when a call of cost 1 would be. */
	static RateLimitDecision inspect(String name, String key, RateLimiterSettings settings, KeyState state,
			long reading, long typicalHoldNanos) {
		return decide(name, key, settings, state, reading, 1, 0, typicalHoldNanos, false, null);
	}

	private static RateLimitDecision describe(String name, String key, RateLimiterSettings settings, KeyState state,
			long at, boolean permitted, long waitNanos, long retryAfterNanos, boolean concurrencyLimited) {
		SlidingWindow[] windows = state.windows;
		long[] windowQuotas = null;
		if (windows != null) {
			windowQuotas = new long[windows.length * 2];
			for (int i = 0; i < windows.length; i++) {
				WindowSettings window = settings.windows().get(i);
				windowQuotas[2 * i] = windows[i].remaining(window, at);
				windowQuotas[2 * i + 1] = windows[i].nanosUntilMore(window, at);
			}
		}
		int inFlight = (state.leases != null) ? state.leases.size() : 0;
		return new RateLimitDecision(name, key, permitted, waitNanos, retryAfterNanos, concurrencyLimited, inFlight,
				settings, at, state.tokens, state.updatedAt, windowQuotas);
	}

}
