package dev.resilience.ratelimit;

import java.util.Arrays;

/**
 * An exact sliding window: one entry (time, cost, id) per admitted call, sorted by time. Calls
 * that reach the same nanosecond are separate entries, unlike the Redis seed's
 * {@code ZADD key now now}, which collapses them into one.
 */
final class WindowLog implements SlidingWindow {

	static final WindowLog EMPTY = new WindowLog(new long[0], new long[0], new long[0]);

	private final long[] times;

	private final long[] costs;

	private final long[] ids;

	private WindowLog(long[] times, long[] costs, long[] ids) {
		this.times = times;
		this.costs = costs;
		this.ids = ids;
	}

	/** An entry admitted at {@code t} counts against every call in {@code [t, t + period)}. */
	private int firstCounted(long period, long at) {
		int index = 0;
		while (index < this.times.length && at - this.times[index] >= period) {
			index++;
		}
		return index;
	}

	private long sumFrom(int index) {
		long sum = 0;
		for (int i = index; i < this.costs.length; i++) {
			sum += this.costs[i];
		}
		return sum;
	}

	@Override
	public WindowLog prune(WindowSettings settings, long now) {
		int first = firstCounted(settings.periodNanos(), now);
		return (first == 0) ? this : slice(first);
	}

	private WindowLog slice(int from) {
		return new WindowLog(Arrays.copyOfRange(this.times, from, this.times.length),
				Arrays.copyOfRange(this.costs, from, this.costs.length), Arrays.copyOfRange(this.ids, from, this.ids.length));
	}

	@Override
	public long availableAt(WindowSettings settings, long notBefore, long cost) {
		long period = settings.periodNanos();
		long start = (this.times.length == 0) ? notBefore : Math.max(notBefore, this.times[this.times.length - 1]);
		int first = firstCounted(period, start);
		long used = sumFrom(first);
		if (used + cost <= settings.limit()) {
			return start;
		}
		// Entries leave the window oldest first; the call fits once enough of them have left.
		for (int i = first; i < this.times.length; i++) {
			used -= this.costs[i];
			if (used + cost <= settings.limit()) {
				return Math.max(start, Durations.saturatedAdd(this.times[i], period));
			}
		}
		throw new IllegalArgumentException("cost " + cost + " exceeds the window limit of " + settings.limit());
	}

	@Override
	public WindowLog add(WindowSettings settings, long at, long cost, long id) {
		int length = this.times.length;
		long[] newTimes = Arrays.copyOf(this.times, length + 1);
		long[] newCosts = Arrays.copyOf(this.costs, length + 1);
		long[] newIds = Arrays.copyOf(this.ids, length + 1);
		newTimes[length] = at;
		newCosts[length] = cost;
		newIds[length] = id;
		return new WindowLog(newTimes, newCosts, newIds);
	}

	@Override
	public WindowLog remove(WindowSettings settings, long id, long cost, long addedAt) {
		for (int i = 0; i < this.ids.length; i++) {
			if (this.ids[i] == id) {
				long[] newTimes = new long[this.times.length - 1];
				long[] newCosts = new long[newTimes.length];
				long[] newIds = new long[newTimes.length];
				System.arraycopy(this.times, 0, newTimes, 0, i);
				System.arraycopy(this.costs, 0, newCosts, 0, i);
				System.arraycopy(this.ids, 0, newIds, 0, i);
				System.arraycopy(this.times, i + 1, newTimes, i, newTimes.length - i);
				System.arraycopy(this.costs, i + 1, newCosts, i, newTimes.length - i);
				System.arraycopy(this.ids, i + 1, newIds, i, newTimes.length - i);
				return new WindowLog(newTimes, newCosts, newIds);
			}
		}
		return this;
	}

	@Override
	public long remaining(WindowSettings settings, long at) {
		return Math.max(0, settings.limit() - sumFrom(firstCounted(settings.periodNanos(), at)));
	}

	@Override
	public long nanosUntilMore(WindowSettings settings, long at) {
		int first = firstCounted(settings.periodNanos(), at);
		return (first < this.times.length)
				? Math.max(0, Durations.saturatedAdd(settings.periodNanos(), this.times[first] - at)) : 0;
	}

	@Override
	public long idleAt(WindowSettings settings) {
		return (this.times.length == 0) ? Long.MIN_VALUE
				: Durations.saturatedAdd(this.times[this.times.length - 1], settings.periodNanos());
	}

}
