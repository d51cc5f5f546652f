package dev.resilience.ratelimit;

import java.util.concurrent.CompletableFuture;

/**
 * A call's place with a limiter, from {@link RateLimiter#reserve(String, int, java.time.Duration)}:
 * for callers that must not block. When the decision is permitted, the slot is held: wait
 * {@link RateLimitDecision#getWait()} (a message handler re-queues its message with that delay),
 * then proceed, and {@link #release()} when the call ends. A caller that gives up
 * {@link #cancel() cancels}, which gives back everything the reservation took.
 */
public interface Reservation {

	/**
	 * Returns the decision.
	 * @return the decision
	 */
	RateLimitDecision getDecision();

	/**
	 * Gives back everything an admitted call took (tokens, window slots, its concurrency
	 * permit), as if the call had not happened, whatever other callers did meanwhile. Does
	 * nothing for a rejected call, or after {@link #cancel()} or {@link #release()}.
	 */
	void cancel();

	/**
	 * Returns the concurrency permit of an admitted call whose work has ended. Does nothing when
	 * the limiter has no {@code max-concurrent}, for a rejected call, after {@link #cancel()}, or
	 * when the permit's lease already expired.
	 */
	void release();

	/**
	 * Returns the concurrency permit as {@link #release()} does, telling the limiter whether the
	 * call ended with a drop: its partner's throttle signal or a timeout. A limiter with
	 * {@code max-concurrent: adaptive} learns from it (SPEC §11); the default ignores it.
	 * @param dropped whether the call ended with a drop
	 */
	default void release(boolean dropped) {
		release();
	}

	/**
	 * Returns the concurrency permit as {@link #release(boolean)} does, without holding the
	 * calling thread for a remote store's answer.
	 * @param dropped whether the call ended with a drop
	 * @return completes when returned
	 */
	default CompletableFuture<Void> releaseAsync(boolean dropped) {
		return releaseAsync();
	}

	/**
	 * Gives back everything as {@link #cancel()} does, without holding the calling thread for a
	 * remote store's answer: for callers on an event loop or a scheduler thread. The future
	 * completes when the store has done it; nothing needs to wait for it.
	 * @return completes when given back
	 */
	default CompletableFuture<Void> cancelAsync() {
		cancel();
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Returns the concurrency permit as {@link #release()} does, without holding the calling
	 * thread for a remote store's answer.
	 * @return completes when returned
	 */
	default CompletableFuture<Void> releaseAsync() {
		release();
		return CompletableFuture.completedFuture(null);
	}

	/**
	 * Returns a reservation that holds nothing to give back or return: for a rejected call, or one
	 * admitted without keeping any state (a store that decided by its failure policy).
	 * @param decision the decision
	 * @return the reservation
	 */
	static Reservation settled(RateLimitDecision decision) {
		return new SettledReservation(decision);
	}

}
