package dev.resilience.ratelimit.store;

import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.WindowSettings;

/**
 * The state of one sliding window for one key, and its arithmetic: reusable by a
 * {@link RateLimitStore} of your own, as {@link TokenBucket} is. Mutable and not thread safe: a
 * store calls it while holding the key's lock (the in-memory store does). A window never admits
 * a call before the last call it admitted (first come, first served), so the admissible times
 * form a ray and the earliest one is easy to find.
 * <p>
 * Times are nanoseconds on the store's clock, and never go back for one window. Every admitted
 * call of a key gets the key's next sequence number (consecutive, starting anywhere), so its
 * entry is found again when the call is given back.
 */
public sealed interface SlidingWindow permits WindowLog, WindowCounter {

	/**
	 * Creates the empty state of a window.
	 * @param algorithm exact log or approximate counter
	 * @param now the time of the key's first use, where a counter's fixed windows start
	 * @return the empty window
	 */
	static SlidingWindow create(WindowAlgorithm algorithm, long now) {
		return (algorithm == WindowAlgorithm.LOG) ? new WindowLog() : new WindowCounter(now);
	}

	/**
	 * Drops what no longer counts at {@code now}; never changes a decision.
	 * @param settings the window's settings
	 * @param now the current time
	 */
	void prune(WindowSettings settings, long now);

	/**
	 * Returns the earliest time at or after {@code notBefore} at which the window admits a call.
	 * @param settings the window's settings
	 * @param notBefore the earliest acceptable time
	 * @param cost the call's cost, at most the window's limit
	 * @return that time
	 */
	long availableAt(WindowSettings settings, long notBefore, long cost);

	/**
	 * Records an admitted call.
	 * @param settings the window's settings
	 * @param at the call's time, at or after {@link #availableAt}
	 * @param cost the call's cost
	 * @param sequence the call's sequence number, one more than the previous call's
	 */
	void add(WindowSettings settings, long at, long cost, long sequence);

	/**
	 * Gives back a call recorded by {@link #add}, as if it had not happened; a call given back
	 * twice, or one that has left the window, changes nothing.
	 * @param settings the window's settings
	 * @param sequence the call's sequence number
	 * @param cost the call's cost
	 * @param addedAt the call's time
	 */
	void remove(WindowSettings settings, long sequence, long cost, long addedAt);

	/**
	 * Returns the quota left at a time at or after the last prune.
	 * @param settings the window's settings
	 * @param at the time
	 * @return the quota left, never negative
	 */
	long remaining(WindowSettings settings, long at);

	/**
	 * Returns how long after {@code at} more quota becomes available.
	 * @param settings the window's settings
	 * @param at the time
	 * @return the time in nanoseconds; zero when none of the quota is used
	 */
	long nanosUntilMore(WindowSettings settings, long at);

}
