package dev.resilience.ratelimit;

/**
 * A store's answer to one {@link RateLimiter#reserve reserve} call: the decision and, when the
 * call was admitted, the handle to undo it or to return its concurrency permit.
 */
public interface Reservation {

	/**
	 * Returns the decision.
	 * @return the decision
	 */
	RateLimitDecision getDecision();

	/**
	 * Gives back everything an admitted call took (tokens, window slots, its concurrency
	 * permit), as if the call had not happened. Does nothing for a rejected call.
	 */
	void cancel();

	/**
	 * Returns the concurrency permit of an admitted call. Does nothing when the limiter has no
	 * {@code max-concurrent}, for a rejected call, or when the permit's lease already expired.
	 */
	void release();

	/**
	 * Returns whether a rejected call lacks only a concurrency permit: its tokens and windows
	 * would admit it within the wait, so it is worth waiting for a permit to be returned.
	 * @return whether only a permit is missing
	 */
	boolean isShortOfPermitOnly();

	/**
	 * For a call rejected because every concurrency permit was taken: waits until one is
	 * returned or the time is up, whichever comes first.
	 * @param nanos the longest wait
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	void awaitPermitReturned(long nanos) throws InterruptedException;

}
