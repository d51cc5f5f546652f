package dev.resilience.ratelimit;

import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;

/**
 * One atomic decision over every constraint of a limiter, as a function of the settings, the
 * key's state and the time. A call is admitted at the earliest time every constraint admits it;
 * since each constraint only ever admits more as time passes, that is the latest of their
 * individual earliest times. A rejected call changes nothing.
 * <p>
 * A limiter with windows or leases holds the key's monitor around every call here. A limiter
 * with only a token bucket holds nothing: the bucket is replaced by compare-and-set, and a
 * decision that lost the race to another thread is made again.
 */
final class LimiterAlgorithm {

	/** The shortest Retry-After for want of a permit: asking again sooner is pointless. */
	static final long MIN_PERMIT_RETRY_NANOS = 1_000_000;

	private LimiterAlgorithm() {
	}

	/**
	 * Decides one call. With {@code commit} false, only tells what would be decided.
	 * @param clock the store's clock, read after the bucket so that it is not behind the time
	 * the bucket was written at
	 * @param typicalHoldNanos how long permits were recently held, 0 when unknown
	 * @param ticket filled in when the call is admitted and may be given back, or {@code null}
	 */
	static RateLimitDecision decide(String name, String key, RateLimiterSettings settings, KeyState state,
			Ticker clock, long cost, long maxWaitNanos, long typicalHoldNanos, boolean commit, @Nullable Ticket ticket) {
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		KeyState.Slots slots = state.slots;
		int lost = 0;
		while (true) {
			KeyState.Bucket bucket = state.bucket();
			long now = clock.read();
			long at = now;
			TokenBucket.State refilled = null;
			if (bucket != null && bucketSettings != null) {
				refilled = TokenBucket.refill(bucketSettings, bucket.state(), now);
				if (refilled.updatedAt() > now || refilled.tokens() < cost) {
					at = TokenBucket.availableAt(bucketSettings, refilled, now, cost);
				}
			}
			boolean concurrencyFull = false;
			if (slots != null) {
				prune(settings, slots, now);
				at = Math.max(at, windowsAvailableAt(settings, slots, now, cost));
				concurrencyFull = slots.leases != null && slots.inFlight() >= settings.maxConcurrent();
			}
			long wait = at - now;
			if (concurrencyFull || wait > maxWaitNanos || !commit) {
				boolean permitted = !concurrencyFull && wait <= maxWaitNanos;
				long retryAfter = (slots == null || !concurrencyFull) ? wait
						: Math.max(wait, permitEstimate(settings, slots, now, typicalHoldNanos));
				return describe(name, key, settings, (refilled != null) ? new KeyState.Bucket(refilled) : null, slots, now,
						permitted, 0, permitted ? 0 : retryAfter, concurrencyFull && wait <= maxWaitNanos);
			}
			KeyState.Bucket after = null;
			if (refilled != null) {
				// Refilled to "now" already: again only for a call that waits.
				if (at != now) {
					refilled = TokenBucket.refill(bucketSettings, bucket.state(), at);
				}
				after = new KeyState.Bucket(refilled.tokens() - cost, refilled.updatedAt());
				if (!state.replaceBucket(bucket, after)) {
					// Another thread decided first (bucket-only limiters): retry at once, and after
					// repeated losses step aside briefly, as Resilience4j does, so the threads on
					// one key do not keep failing each other.
					if (++lost > 1) {
						LockSupport.parkNanos(1);
					}
					else {
						Thread.onSpinWait();
					}
					continue;
				}
			}
			long sequence = (slots != null) ? admit(settings, slots, at, cost) : 0;
			if (ticket != null) {
				ticket.sequence = sequence;
				ticket.cost = cost;
				ticket.at = at;
				ticket.before = bucket;
				ticket.after = after;
			}
			return describe(name, key, settings, after, slots, at, true, wait, 0, false);
		}
	}

	private static long windowsAvailableAt(RateLimiterSettings settings, KeyState.Slots slots, long now, long cost) {
		long at = now;
		SlidingWindow[] windows = slots.windows;
		if (windows != null) {
			for (int i = 0; i < windows.length; i++) {
				at = Math.max(at, windows[i].availableAt(settings.windows().get(i), now, cost));
			}
		}
		return at;
	}

	/** Records an admitted call in the windows and leases; returns its sequence number. */
	private static long admit(RateLimiterSettings settings, KeyState.Slots slots, long at, long cost) {
		long sequence = ++slots.admissions;
		SlidingWindow[] windows = slots.windows;
		if (windows != null) {
			for (int i = 0; i < windows.length; i++) {
				windows[i].add(settings.windows().get(i), at, cost, sequence);
			}
		}
		if (slots.leases != null) {
			slots.leases.add(sequence, at);
		}
		return sequence;
	}

	private static void prune(RateLimiterSettings settings, KeyState.Slots slots, long now) {
		SlidingWindow[] windows = slots.windows;
		if (windows != null) {
			for (int i = 0; i < windows.length; i++) {
				windows[i].prune(settings.windows().get(i), now);
			}
		}
		if (slots.leases != null) {
			slots.leases.prune(now, Durations.toNanos(settings.leaseTimeout()));
		}
	}

	/**
	 * When a permit is likely back: the typical hold time minus how long the oldest holder has
	 * held its permit (or another typical hold time when it is overdue), at least
	 * {@link #MIN_PERMIT_RETRY_NANOS}, and never later than the oldest lease expires. Before any
	 * permit was returned, the time the oldest holder has held it so far.
	 */
	private static long permitEstimate(RateLimiterSettings settings, KeyState.Slots slots, long now,
			long typicalHoldNanos) {
		long oldest = slots.leases.oldestStart();
		long held = Math.max(0, now - oldest);
		long expiresIn = Durations.saturatedAdd(oldest, Durations.toNanos(settings.leaseTimeout())) - now;
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
	 * Otherwise the tokens go back on top of what others left, but never beyond what the bucket
	 * would hold without the call: tokens it earned while at its fullest would have overflowed
	 * the capacity. The fullest it can have been since is bounded by what the call left plus what
	 * it earned since; so a give-back never admits more than the limit allows, and may give back
	 * less when others took tokens and it refilled meanwhile.
	 * @return when the permit was taken, or {@link Long#MIN_VALUE} when it was not held
	 */
	static long giveBack(RateLimiterSettings settings, KeyState state, Ticket ticket, Ticker clock) {
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		KeyState.Bucket taken = ticket.after;
		KeyState.Bucket before = ticket.before;
		if (bucketSettings != null && taken != null && before != null) {
			while (true) {
				KeyState.Bucket current = state.bucket();
				if (current == null) {
					break;
				}
				KeyState.Bucket restored = (current == taken) ? before
						: returnTokens(bucketSettings, current, taken, ticket.cost, clock.read());
				if (state.replaceBucket(current, restored)) {
					break;
				}
			}
		}
		KeyState.Slots slots = state.slots;
		if (slots == null) {
			return Long.MIN_VALUE;
		}
		SlidingWindow[] windows = slots.windows;
		if (windows != null) {
			for (int i = 0; i < windows.length; i++) {
				windows[i].remove(settings.windows().get(i), ticket.sequence, ticket.cost, ticket.at);
			}
		}
		return release(slots, ticket.sequence);
	}

	/** Puts back what a call took, up to the room the bucket had at its fullest since. */
	private static KeyState.Bucket returnTokens(TokenBucketSettings settings, KeyState.Bucket current,
			KeyState.Bucket taken, long cost, long now) {
		KeyState.Bucket refilled = current.refill(settings, now);
		long until = Math.max(now, refilled.updatedAt());
		long fullest = Math.min(settings.capacity(), Durations.saturatedAdd(taken.tokens(),
				TokenBucket.mostEarnedBetween(settings, taken.updatedAt(), until)));
		long returned = Math.min(cost, settings.capacity() - fullest);
		return (returned <= 0) ? refilled
				: new KeyState.Bucket(Math.min(settings.capacity(), refilled.tokens() + returned), refilled.updatedAt());
	}

	/**
	 * Returns a concurrency permit.
	 * @return when the permit was taken, or {@link Long#MIN_VALUE} when it was not held
	 */
	static long release(KeyState.@Nullable Slots slots, long sequence) {
		return (slots != null && slots.leases != null) ? slots.leases.remove(sequence) : Long.MIN_VALUE;
	}

	private static RateLimitDecision describe(String name, String key, RateLimiterSettings settings,
			KeyState.@Nullable Bucket bucket, KeyState.@Nullable Slots slots, long at, boolean permitted,
			long waitNanos, long retryAfterNanos, boolean concurrencyLimited) {
		long[] windowQuotas = null;
		int inFlight = 0;
		if (slots != null) {
			SlidingWindow[] windows = slots.windows;
			if (windows != null) {
				windowQuotas = new long[windows.length * 2];
				for (int i = 0; i < windows.length; i++) {
					WindowSettings window = settings.windows().get(i);
					windowQuotas[2 * i] = windows[i].remaining(window, at);
					windowQuotas[2 * i + 1] = windows[i].nanosUntilMore(window, at);
				}
			}
			inFlight = slots.inFlight();
		}
		return new RateLimitDecision(name, key, permitted, waitNanos, retryAfterNanos, concurrencyLimited, inFlight,
				settings, at, bucket, windowQuotas);
	}

}
