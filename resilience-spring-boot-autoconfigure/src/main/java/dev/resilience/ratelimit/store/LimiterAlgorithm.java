package dev.resilience.ratelimit.store;

import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;
import dev.resilience.internal.Durations;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.TokenBucketSettings;

/**
 * One atomic decision over every constraint of a limiter, as a function of the settings, the
 * key's state and the time. A call is admitted at the earliest time every constraint admits it;
 * since each constraint only ever admits more as time passes, that is the latest of their
 * individual earliest times. A rejected call changes nothing.
 * <p>
 * {@link #decide} is pure: it returns the key's new bucket and the verdict, and changes nothing.
 * The store makes it atomic: a limiter with only a token bucket swaps the bucket by
 * compare-and-set and decides again when another thread was first; a limiter with windows or
 * leases holds the key's monitor, prunes the windows first and records an admitted call with
 * {@link #admit}.
 */
final class LimiterAlgorithm {

	/** The shortest Retry-After for want of a permit: asking again sooner is pointless. */
	static final long MIN_PERMIT_RETRY_NANOS = 1_000_000;

	private LimiterAlgorithm() {
	}

	/**
	 * The outcome of one decision.
	 *
	 * @param refilled the bucket refilled to the time of the call, {@code null} without one
	 * @param taken the bucket after the call took its tokens when permitted: the key's new bucket
	 * @param at when the call proceeds, when permitted
	 * @param retryAfterNanos how long a rejected call should wait, 0 when permitted
	 * @param permitted whether the call is admitted within its wait
	 * @param concurrencyLimited whether a rejected call lacked only a concurrency permit
	 */
	record Verdict(KeyState.@Nullable Bucket refilled, KeyState.@Nullable Bucket taken, long at, long retryAfterNanos,
			boolean permitted, boolean concurrencyLimited) {
	}

	/**
	 * Decides one call of a key at {@code now}, changing nothing.
	 * @param settings the limiter's settings
	 * @param bucket the key's bucket, {@code null} without a token bucket
	 * @param slots the key's windows and leases, pruned at {@code now}; {@code null} for a
	 * bucket-only limiter
	 * @param now the time, not before the bucket's
	 * @param cost the call's cost
	 * @param maxWaitNanos how long the call may wait for its turn
	 * @param typicalHoldNanos how long permits were recently held, 0 when unknown
	 * @return the verdict
	 */
	static Verdict decide(RateLimiterSettings settings, KeyState.@Nullable Bucket bucket, KeyState.@Nullable Slots slots,
			long now, long cost, long maxWaitNanos, long typicalHoldNanos) {
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		long at = now;
		KeyState.Bucket refilled = null;
		if (bucket != null && bucketSettings != null) {
			refilled = bucket.refill(bucketSettings, now);
			if (refilled.updatedAt() > now || refilled.tokens() < cost) {
				at = TokenBucket.availableAt(bucketSettings, refilled.state(), now, cost);
			}
		}
		boolean concurrencyFull = false;
		if (slots != null) {
			at = Math.max(at, windowsAvailableAt(settings, slots, now, cost));
			concurrencyFull = slots.leases != null && slots.inFlight() >= slots.concurrencyLimit(settings, now);
		}
		long wait = at - now;
		if (concurrencyFull || wait > maxWaitNanos) {
			long retryAfter = (slots == null || !concurrencyFull) ? wait
					: Math.max(wait, permitEstimate(settings, slots, now, typicalHoldNanos));
			return new Verdict(refilled, null, now, Math.max(0, retryAfter), false,
					concurrencyFull && wait <= maxWaitNanos);
		}
		KeyState.Bucket taken = null;
		if (refilled != null) {
			// Refilled to "now" already: again only for a call that waits.
			KeyState.Bucket atStart = (at != now) ? bucket.refill(bucketSettings, at) : refilled;
			taken = new KeyState.Bucket(atStart.tokens() - cost, atStart.updatedAt());
		}
		return new Verdict(refilled, taken, at, 0, true, false);
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
	static long admit(RateLimiterSettings settings, KeyState.Slots slots, long at, long cost) {
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

	/** Drops the window entries and leases that no longer count at {@code now}; never changes a decision. */
	static void prune(RateLimiterSettings settings, KeyState.Slots slots, long now) {
		SlidingWindow[] windows = slots.windows;
		if (windows != null) {
			for (int i = 0; i < windows.length; i++) {
				windows[i].prune(settings.windows().get(i), now);
			}
		}
		if (slots.leases != null) {
			slots.leases.prune(now, Durations.saturatedNanos(settings.leaseTimeout()));
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
		long expiresIn = Durations.saturatedAdd(oldest, Durations.saturatedNanos(settings.leaseTimeout())) - now;
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
		KeyState.Bucket taken = ticket.after();
		KeyState.Bucket before = ticket.before();
		if (bucketSettings != null && taken != null && before != null) {
			while (true) {
				KeyState.Bucket current = state.bucket();
				// A forgotten key starts full again: nothing to give back to.
				if (current == null || current == KeyState.RETIRED) {
					break;
				}
				KeyState.Bucket restored = (current == taken) ? before
						: returnTokens(bucketSettings, current, taken, ticket.cost(), clock.read());
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
				windows[i].remove(settings.windows().get(i), ticket.sequence(), ticket.cost(), ticket.at());
			}
		}
		return release(slots, ticket.sequence());
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

}
