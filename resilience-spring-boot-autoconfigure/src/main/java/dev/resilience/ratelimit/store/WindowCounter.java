package dev.resilience.ratelimit.store;

import dev.resilience.internal.Durations;
import dev.resilience.ratelimit.WindowSettings;

/**
 * An approximate sliding window in constant memory: the cost admitted in the current and the
 * previous fixed window, the previous one weighed by how much of it the sliding window still covers
 * (the "sliding window counter" of Cloudflare and Redis rate limiters). It assumes calls in the
 * previous window were spread evenly, so it may admit a little more or less than {@code limit} in a
 * given interval; use {@link dev.resilience.ratelimit.WindowAlgorithm#LOG} to be exact. The fixed
 * windows of a key start at its first use. Create one with {@link SlidingWindow#create}.
 */
final class WindowCounter implements SlidingWindow {

	private long start;

	private long previous;

	private long current;

	/** The latest admission: nobody is admitted before it (first come, first served). */
	private long last = Long.MIN_VALUE;

	/**
	 * The sequence number of the latest admission, and the state before it: giving that call
	 * back restores the state exactly, even when its reservation had moved the fixed windows
	 * ahead.
	 */
	private long lastSequence = -1;

	private long startBefore;

	private long previousBefore;

	private long currentBefore;

	private long lastBefore;

	WindowCounter(long now) {
		this.start = now;
	}

	/** The start of the fixed window holding {@code at}, for {@code at} not before {@link #start}. */
	private long windowStart(long period, long at) {
		return this.start + ((at - this.start) / period) * period;
	}

	/** The previous window's count as seen from the fixed window starting at {@code windowStart}. */
	private long previousAt(long period, long windowStart) {
		if (windowStart == this.start) {
			return this.previous;
		}
		return (windowStart - this.start == period) ? this.current : 0;
	}

	private long currentAt(long windowStart) {
		return (windowStart == this.start) ? this.current : 0;
	}

	private static double estimate(long period, long windowStart, long previous, long current, long at) {
		double previousWeight = (double) (period - (at - windowStart)) / period;
		return previous * previousWeight + current;
	}

	@Override
	public void prune(WindowSettings settings, long now) {
		long period = settings.periodNanos();
		if (now - this.start >= period) {
			long newStart = windowStart(period, now);
			this.previous = previousAt(period, newStart);
			this.current = 0;
			this.start = newStart;
		}
	}

	@Override
	public long availableAt(WindowSettings settings, long notBefore, long cost) {
		long period = settings.periodNanos();
		long from = Math.max(Math.max(notBefore, this.last), this.start);
		long windowStart = windowStart(period, from);
		long previous = previousAt(period, windowStart);
		long current = currentAt(windowStart);
		if (estimate(period, windowStart, previous, current, from) + cost <= settings.limit()) {
			return from;
		}
		long room = settings.limit() - cost - current;
		if (room >= 0) {
			// Within this window the previous window's weight falls linearly to zero.
			long at = Durations.saturatedAdd(windowStart, period - (long) Math.floor((double) room * period / previous));
			return Math.max(from, at);
		}
		// Here "current" alone leaves no room (so it is positive): it weighs in the next window.
		long nextStart = Durations.saturatedAdd(windowStart, period);
		long at = Durations.saturatedAdd(nextStart,
				period - (long) Math.floor((double) (settings.limit() - cost) * period / current));
		return Math.max(nextStart, at);
	}

	@Override
	public void add(WindowSettings settings, long at, long cost, long sequence) {
		this.startBefore = this.start;
		this.previousBefore = this.previous;
		this.currentBefore = this.current;
		this.lastBefore = this.last;
		this.lastSequence = sequence;
		prune(settings, at);
		this.current += cost;
		this.last = Math.max(this.last, at);
	}

	@Override
	public void remove(WindowSettings settings, long sequence, long cost, long addedAt) {
		if (sequence == this.lastSequence) {
			// Nobody was admitted since: restore the state before the call, so later callers
			// neither queue behind its time nor find the windows moved ahead by it.
			this.start = this.startBefore;
			this.previous = this.previousBefore;
			this.current = this.currentBefore;
			this.last = this.lastBefore;
			this.lastSequence = -1;
			return;
		}
		long period = settings.periodNanos();
		if (addedAt >= this.start && addedAt - this.start < period) {
			this.current = Math.max(0, this.current - cost);
		}
		else if (addedAt < this.start && this.start - addedAt <= period) {
			this.previous = Math.max(0, this.previous - cost);
		}
		// The state saved before the latest call counts this call too, unless it came later.
		if (this.lastSequence >= 0 && sequence < this.lastSequence) {
			if (addedAt >= this.startBefore && addedAt - this.startBefore < period) {
				this.currentBefore = Math.max(0, this.currentBefore - cost);
			}
			else if (addedAt < this.startBefore && this.startBefore - addedAt <= period) {
				this.previousBefore = Math.max(0, this.previousBefore - cost);
			}
		}
	}

	@Override
	public long remaining(WindowSettings settings, long at) {
		long period = settings.periodNanos();
		long windowStart = windowStart(period, Math.max(at, this.start));
		double used = estimate(period, windowStart, previousAt(period, windowStart), currentAt(windowStart),
				Math.max(at, windowStart));
		return Math.max(0, settings.limit() - (long) Math.ceil(used));
	}

	@Override
	public long nanosUntilMore(WindowSettings settings, long at) {
		long period = settings.periodNanos();
		long windowStart = windowStart(period, Math.max(at, this.start));
		return (previousAt(period, windowStart) + currentAt(windowStart) == 0) ? 0
				: Math.max(0, period - (at - windowStart));
	}

}
