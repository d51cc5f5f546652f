package dev.resilience.ratelimit;

/**
 * The immutable state of one sliding window for one key. Every operation returns a new state.
 * A window never admits a call before the last call it admitted (first come, first served), so
 * the admissible times form a ray and the earliest one is easy to find.
 */
sealed interface SlidingWindow permits WindowLog, WindowCounter {

	/** Creates the empty state of a window for the given algorithm. */
	static SlidingWindow empty(WindowAlgorithm algorithm, long now) {
		return (algorithm == WindowAlgorithm.LOG) ? WindowLog.EMPTY : WindowCounter.empty(now);
	}

	/** Drops what no longer counts at {@code now}; never changes a decision. */
	SlidingWindow prune(WindowSettings settings, long now);

	/** The earliest time at or after {@code notBefore} at which the window admits {@code cost}. */
	long availableAt(WindowSettings settings, long notBefore, long cost);

	/** Records an admitted call at time {@code at}, which is at or after {@link #availableAt}. */
	SlidingWindow add(WindowSettings settings, long at, long cost, long id);

	/** Gives back the call recorded by {@link #add} with the given id, as if it had not happened. */
	SlidingWindow remove(WindowSettings settings, long id, long cost, long addedAt);

	/** The quota left at time {@code at}. */
	long remaining(WindowSettings settings, long at);

	/** How long after {@code at} more quota becomes available; zero when none is used. */
	long nanosUntilMore(WindowSettings settings, long at);

	/** The time from which the window is empty again, so its key may be forgotten. */
	long idleAt(WindowSettings settings);

}
