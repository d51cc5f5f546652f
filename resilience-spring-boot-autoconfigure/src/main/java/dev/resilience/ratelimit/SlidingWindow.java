package dev.resilience.ratelimit;

/**
 * The state of one sliding window for one key. Mutable: the store calls it under the key's
 * lock. A window never admits a call before the last call it admitted (first come, first served),
 * so the admissible times form a ray and the earliest one is easy to find.
 * <p>
 * Times are nanoseconds on the store's clock. Every admitted call of a key gets the key's next
 * sequence number, so entries are found again by number when a call is given back.
 */
sealed interface SlidingWindow permits WindowLog, WindowCounter {

	/** Creates the empty state of a window for the given algorithm. */
	static SlidingWindow create(WindowAlgorithm algorithm, long now) {
		return (algorithm == WindowAlgorithm.LOG) ? new WindowLog() : new WindowCounter(now);
	}

	/** Drops what no longer counts at {@code now}; never changes a decision. */
	void prune(WindowSettings settings, long now);

	/** The earliest time at or after {@code notBefore} at which the window admits {@code cost}. */
	long availableAt(WindowSettings settings, long notBefore, long cost);

	/** Records an admitted call at time {@code at}, which is at or after {@link #availableAt}. */
	void add(WindowSettings settings, long at, long cost, long sequence);

	/** Gives back the call recorded by {@link #add} with the given sequence number. */
	void remove(WindowSettings settings, long sequence, long cost, long addedAt);

	/** The quota left at time {@code at}, at or after the last prune. */
	long remaining(WindowSettings settings, long at);

	/** How long after {@code at} more quota becomes available; zero when none is used. */
	long nanosUntilMore(WindowSettings settings, long at);

}
