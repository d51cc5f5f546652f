package dev.resilience.ratelimit;

/**
 * An approximate sliding window in constant memory: the cost admitted in the current and the
 * previous fixed window, the previous one weighed by how much of it the sliding window still
 * covers (the "sliding window counter" of Cloudflare and Redis rate limiters). It assumes calls
 * in the previous window were spread evenly, so it may admit a little more or less than
 * {@code limit} in a given interval; use {@link WindowAlgorithm#LOG} to be exact.
 */
final class WindowCounter implements SlidingWindow {

	private final long start;

	private final long previous;

	private final long current;

	private final long last;

	private WindowCounter(long start, long previous, long current, long last) {
		this.start = start;
		this.previous = previous;
		this.current = current;
		this.last = last;
	}

	static WindowCounter empty(long now) {
		return new WindowCounter(now, 0, 0, Long.MIN_VALUE);
	}

	private WindowCounter advance(long period, long at) {
		if (at - this.start < period) {
			return this;
		}
		long windows = (at - this.start) / period;
		long newStart = this.start + windows * period;
		return new WindowCounter(newStart, (windows == 1) ? this.current : 0, 0, this.last);
	}

	private double estimate(long period, long at) {
		double previousWeight = (double) (period - (at - this.start)) / period;
		return this.previous * previousWeight + this.current;
	}

	@Override
	public WindowCounter prune(WindowSettings settings, long now) {
		return advance(settings.periodNanos(), now);
	}

	@Override
	public long availableAt(WindowSettings settings, long notBefore, long cost) {
		long period = settings.periodNanos();
		long from = Math.max(notBefore, this.last);
		WindowCounter counter = advance(period, from);
		if (counter.estimate(period, from) + cost <= settings.limit()) {
			return from;
		}
		long room = settings.limit() - cost - counter.current;
		if (room >= 0) {
			// Within this window the previous window's weight falls linearly to zero.
			long at = Durations.saturatedAdd(counter.start,
					period - (long) Math.floor((double) room * period / counter.previous));
			return Math.max(from, at);
		}
		long nextStart = Durations.saturatedAdd(counter.start, period);
		long nextRoom = settings.limit() - cost;
		if (counter.current == 0) {
			return nextStart;
		}
		long at = Durations.saturatedAdd(nextStart,
				period - (long) Math.floor((double) nextRoom * period / counter.current));
		return Math.max(Math.max(from, nextStart), at);
	}

	@Override
	public WindowCounter add(WindowSettings settings, long at, long cost, long id) {
		WindowCounter counter = advance(settings.periodNanos(), at);
		return new WindowCounter(counter.start, counter.previous, counter.current + cost, Math.max(this.last, at));
	}

	@Override
	public WindowCounter remove(WindowSettings settings, long id, long cost, long addedAt) {
		long period = settings.periodNanos();
		if (addedAt >= this.start && addedAt - this.start < period) {
			return new WindowCounter(this.start, this.previous, Math.max(0, this.current - cost), this.last);
		}
		if (addedAt < this.start && this.start - addedAt <= period) {
			return new WindowCounter(this.start, Math.max(0, this.previous - cost), this.current, this.last);
		}
		return this;
	}

	@Override
	public long remaining(WindowSettings settings, long at) {
		long period = settings.periodNanos();
		WindowCounter counter = advance(period, at);
		return Math.max(0, settings.limit() - (long) Math.ceil(counter.estimate(period, Math.max(at, counter.start))));
	}

	@Override
	public long nanosUntilMore(WindowSettings settings, long at) {
		long period = settings.periodNanos();
		WindowCounter counter = advance(period, at);
		return (counter.previous + counter.current == 0) ? 0 : Math.max(0, period - (at - counter.start));
	}

	@Override
	public long idleAt(WindowSettings settings) {
		long period = settings.periodNanos();
		if (this.current > 0) {
			return Durations.saturatedAdd(Durations.saturatedAdd(this.start, period), period);
		}
		return (this.previous > 0) ? Durations.saturatedAdd(this.start, period) : Long.MIN_VALUE;
	}

}
