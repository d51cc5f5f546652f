package dev.resilience.ratelimit.store;

import dev.resilience.internal.Durations;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.TokenBucketSettings;

/**
 * The token-bucket arithmetic as a pure function over an immutable {@link State}, after
 * ExWaiter's {@code limit_rate}: give it the bucket, the settings and the time, and it returns
 * the new bucket and whether the call may proceed. It keeps no state of its own, so any store
 * (in memory, Redis, or a user's own) can keep the buckets wherever it likes.
 * <p>
 * Times are nanoseconds on one monotonic clock. Unlike ExWaiter, an {@link RefillStrategy#INTERVAL
 * interval} refill keeps the part of a period that has already elapsed instead of restarting the
 * period at "now", and a {@link RefillStrategy#GREEDY greedy} refill adds each token at the
 * nanosecond it is earned. A bucket may be dated in the future: that is a reservation, and nobody
 * is admitted before it (first come, first served).
 */
public final class TokenBucket {

	private TokenBucket() {
	}

	/**
	 * A bucket: how many tokens it held at a given time.
	 *
	 * @param tokens the tokens in the bucket at {@code updatedAt}, never negative
	 * @param updatedAt the time of the last refill (or reservation), in nanoseconds
	 */
	public record State(long tokens, long updatedAt) {
	}

	/**
	 * The outcome of one call.
	 *
	 * @param state the bucket after the call; unchanged but refilled when the call was refused
	 * @param permitted whether the call may proceed
	 * @param remaining the tokens left after the call
	 * @param waitNanos how long the caller must wait before proceeding (0 unless reserved)
	 * @param nanosUntilRefill how long from the time of the call until the next token arrives, 0
	 * when the bucket is full
	 */
	public record Result(State state, boolean permitted, long remaining, long waitNanos, long nanosUntilRefill) {
	}

	/**
	 * Returns a full bucket, as every new key starts. An interval bucket's periods start now, at
	 * its first use, so the buckets of different keys do not all refill at the same instant.
	 * @param settings the bucket's settings
	 * @param now the current time
	 * @return a full bucket
	 */
	public static State full(TokenBucketSettings settings, long now) {
		return new State(settings.capacity(), now);
	}

	/**
	 * Adds the tokens earned between the bucket's time and {@code now}.
	 * @param settings the bucket's settings
	 * @param state the bucket
	 * @param now the current time
	 * @return the bucket as of {@code now}, or unchanged when it is dated at or after {@code now}
	 */
	public static State refill(TokenBucketSettings settings, State state, long now) {
		if (state.tokens() > settings.capacity()) {
			// The capacity was lowered at run time: a bucket holds no more than its capacity.
			state = new State(settings.capacity(), state.updatedAt());
		}
		long elapsed = now - state.updatedAt();
		long missing = settings.capacity() - state.tokens();
		if (elapsed <= 0 || missing <= 0) {
			return (missing <= 0 && elapsed > 0) ? alignedFull(settings, state, now) : state;
		}
		long period = settings.refillPeriodNanos();
		long rate = settings.refillTokens();
		if (settings.refillStrategy() == RefillStrategy.INTERVAL) {
			long periods = elapsed / period;
			if (periods == 0) {
				return state;
			}
			long added = (periods >= Durations.mulDivCeil(missing, 1, rate)) ? missing : periods * rate;
			return new State(state.tokens() + added, state.updatedAt() + periods * period);
		}
		if (Durations.productAtLeast(elapsed, rate, missing, period)) {
			// Earned all that was missing: known without the division below, the common case of
			// a key used within its limit.
			return new State(settings.capacity(), now);
		}
		long added = Durations.mulDivFloor(elapsed, rate, period);
		if (added == 0) {
			return state;
		}
		// Move the clock only to the nanosecond the last whole token was earned, so the fraction of
		// the next token already earned is kept.
		return new State(state.tokens() + added, state.updatedAt() + Durations.mulDivCeil(added, period, rate));
	}

	/**
	 * Takes {@code cost} tokens if the bucket has them now; never waits.
	 * @param settings the bucket's settings
	 * @param state the bucket
	 * @param now the current time
	 * @param cost the tokens the call consumes
	 * @return the outcome
	 * @throws IllegalArgumentException if {@code cost} is not positive or exceeds the capacity
	 */
	public static Result tryTake(TokenBucketSettings settings, State state, long now, long cost) {
		checkCost(settings, cost);
		State refilled = refill(settings, state, now);
		if (refilled.updatedAt() <= now && refilled.tokens() >= cost) {
			State taken = new State(refilled.tokens() - cost, refilled.updatedAt());
			return new Result(taken, true, taken.tokens(), 0, nanosUntilRefill(settings, taken, now));
		}
		return new Result(refilled, false, refilled.tokens(), 0, nanosUntilRefill(settings, refilled, now));
	}

	/**
	 * Takes {@code cost} tokens at the earliest time at or after {@code now} that the bucket has
	 * them, reserving them for the caller, who waits {@link Result#waitNanos()} before proceeding.
	 * @param settings the bucket's settings
	 * @param state the bucket
	 * @param now the current time
	 * @param cost the tokens the call consumes
	 * @return the outcome, always permitted
	 * @throws IllegalArgumentException if {@code cost} is not positive or exceeds the capacity
	 */
	public static Result reserve(TokenBucketSettings settings, State state, long now, long cost) {
		checkCost(settings, cost);
		long at = availableAt(settings, state, now, cost);
		State refilled = refill(settings, state, at);
		// Keep the refill clock where refill left it: dating the bucket at "at" would drop the part
		// of a period (or the fraction of a token) already earned. When the caller waits for this
		// bucket's own tokens, refill already dates it at "at", so later callers queue behind it.
		State taken = new State(refilled.tokens() - cost, refilled.updatedAt());
		return new Result(taken, true, taken.tokens(), at - now, nanosUntilRefill(settings, taken, at));
	}

	/**
	 * Returns the earliest time at or after {@code notBefore} at which the bucket holds
	 * {@code cost} tokens.
	 * @param settings the bucket's settings
	 * @param state the bucket
	 * @param notBefore the earliest acceptable time
	 * @param cost the tokens wanted, at most the capacity
	 * @return that time, in nanoseconds
	 */
	public static long availableAt(TokenBucketSettings settings, State state, long notBefore, long cost) {
		State refilled = refill(settings, state, notBefore);
		long earliest = Math.max(notBefore, refilled.updatedAt());
		long missing = cost - refilled.tokens();
		if (missing <= 0) {
			return earliest;
		}
		long period = settings.refillPeriodNanos();
		long rate = settings.refillTokens();
		long wait = (settings.refillStrategy() == RefillStrategy.INTERVAL)
				? Durations.mulDivCeil(Durations.mulDivCeil(missing, 1, rate), period, 1)
				: Durations.mulDivCeil(missing, period, rate);
		return Math.max(earliest, Durations.saturatedAdd(refilled.updatedAt(), wait));
	}

	/**
	 * Returns the time at which the bucket will be full again if nothing is taken.
	 * @param settings the bucket's settings
	 * @param state the bucket
	 * @return that time, in nanoseconds
	 */
	public static long fullAt(TokenBucketSettings settings, State state) {
		return availableAt(settings, state, state.updatedAt(), settings.capacity());
	}

	/**
	 * Returns the most tokens a bucket can earn between two times, capacity aside: every refill
	 * that can fall in the interval, whole periods rounded up.
	 * @param settings the bucket's settings
	 * @param from the start
	 * @param to the end
	 * @return the tokens, zero when {@code to} is not after {@code from}
	 */
	public static long mostEarnedBetween(TokenBucketSettings settings, long from, long to) {
		if (to <= from) {
			return 0;
		}
		long period = settings.refillPeriodNanos();
		if (settings.refillStrategy() == RefillStrategy.INTERVAL) {
			return Durations.mulDivCeil(Durations.mulDivCeil(to - from, 1, period), settings.refillTokens(), 1);
		}
		return Durations.mulDivCeil(to - from, settings.refillTokens(), period);
	}

	private static long nanosUntilRefill(TokenBucketSettings settings, State state, long now) {
		if (state.tokens() >= settings.capacity()) {
			return 0;
		}
		long next = availableAt(settings, state, now, state.tokens() + 1);
		return Math.max(0, next - now);
	}

	private static State alignedFull(TokenBucketSettings settings, State state, long now) {
		if (settings.refillStrategy() == RefillStrategy.INTERVAL) {
			long period = settings.refillPeriodNanos();
			return new State(state.tokens(), state.updatedAt() + ((now - state.updatedAt()) / period) * period);
		}
		return new State(state.tokens(), now);
	}

	static void checkCost(TokenBucketSettings settings, long cost) {
		if (cost <= 0) {
			throw new IllegalArgumentException("cost must be positive but was " + cost);
		}
		if (cost > settings.capacity()) {
			throw new IllegalArgumentException("cost " + cost + " exceeds the token bucket's capacity of "
					+ settings.capacity() + ", so it could never be admitted");
		}
	}

}
