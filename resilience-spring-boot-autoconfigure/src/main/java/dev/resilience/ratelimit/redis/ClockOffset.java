package dev.resilience.ratelimit.redis;

import java.util.concurrent.TimeUnit;

/**
 * What the store knows of the Redis server's clock: the server's time minus ours, in microseconds,
 * learned from each reply, which carries the time the script ran ({@code TIME}). A pure rule: an
 * observation and the local time in, the next state out.
 * <p>
 * A reply arrives after the script ran, so each observation is at most the true offset, less by
 * the reply's time in transit (and any pause of the thread that reads it): the largest
 * observation is the closest, and a deadline made from it is never later than meant. Yet the
 * largest of all time never forgets: after the server's clock is set back (or a failover to a
 * server whose clock is behind) the offset would stay too large for good, and every deadline late
 * by the step. So the estimate is the largest observation of the current and the previous
 * {@value #WINDOW_MILLIS} ms window of local time (a windowed maximum): it grows at once, and
 * shrinks once the larger observations are two windows old.
 * @param known whether a reply was observed
 * @param previous the largest observation of the previous window
 * @param current the largest observation of the current window
 * @param windowStart when the current window began, on the store's ticker
 */
record ClockOffset(boolean known, long previous, long current, long windowStart) {

	/** The length of a window. */
	static final long WINDOW_MILLIS = 1000;

	private static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(WINDOW_MILLIS);

	/** Nothing observed yet. */
	static final ClockOffset UNKNOWN = new ClockOffset(false, 0, 0, 0);

	/**
	 * The offset to date deadlines by: the largest observation of the two windows.
	 * @return the server's clock minus ours, in microseconds
	 */
	long estimate() {
		return Math.max(this.previous, this.current);
	}

	/**
	 * Whether an observation would change nothing: one no larger than the current window's largest,
	 * within that window. Most replies teach nothing new.
	 * @param observed the server's time in a reply minus ours as it arrived, in microseconds
	 * @param now the ticker's reading
	 * @return whether {@link #observe} would return this state
	 */
	boolean teachesNothing(long observed, long now) {
		return this.known && observed <= this.current && now - this.windowStart < WINDOW_NANOS;
	}

	/**
	 * Takes an observation in.
	 * @param observed the server's time in a reply minus ours as it arrived, in microseconds
	 * @param now the ticker's reading
	 * @return the state after it
	 */
	ClockOffset observe(long observed, long now) {
		if (!this.known) {
			return new ClockOffset(true, observed, observed, now);
		}
		if (now - this.windowStart < WINDOW_NANOS) {
			return (observed <= this.current) ? this
					: new ClockOffset(true, this.previous, observed, this.windowStart);
		}
		// a new window: the one just ended becomes the previous one (after a silence, the last
		// window with a reply, the latest knowledge there is)
		return new ClockOffset(true, this.current, observed, now);
	}

}
