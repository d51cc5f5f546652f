package dev.resilience.ratelimit.store;

import java.util.Arrays;

import dev.resilience.internal.Durations;
import dev.resilience.ratelimit.WindowSettings;

/**
 * An exact sliding window: one entry per admitted call, in time order. Calls that reach the same
 * nanosecond are separate entries: a log keyed by the time alone (a Redis sorted set written with
 * {@code ZADD key now now}) would collapse them into one and count too few calls.
 * <p>
 * A decision must not cost more for a larger limit, so the entries live in two growing arrays
 * used as a queue: the times, and the running total of the cost admitted up to each entry.
 * Entries leave at the head as time passes (amortised constant time); the cost within a window
 * is the difference of two running totals, and the entry whose departure makes room for a call
 * is found by binary search over the totals. A call given back keeps its entry with cost zero,
 * so entries keep their positions and sequence numbers. Create one with
 * {@link SlidingWindow#create}.
 */
final class WindowLog implements SlidingWindow {

	private static final long[] NONE = new long[0];

	private long[] times = NONE;

	/** {@code totals[i]}: the cost of every entry up to and including {@code i}, given-back ones excepted. */
	private long[] totals = NONE;

	private int head;

	private int tail;

	/** The running total before {@link #head}. */
	private long base;

	/** The sequence number of the entry at {@link #head}. */
	private long headSequence;

	/** The time of the latest entry that was not given back: nobody is admitted before it. */
	private long lastAdmitted = Long.MIN_VALUE;

	WindowLog() {
	}

	private long totalBefore(int index) {
		return (index == this.head) ? this.base : this.totals[index - 1];
	}

	private long total() {
		return totalBefore(this.tail);
	}

	/** The first entry that counts at {@code at}: one admitted at {@code t} counts in {@code [t, t + period)}. */
	private int firstCounted(long period, long at) {
		if (this.head == this.tail || at - this.times[this.head] < period) {
			return this.head; // the usual case after a prune at "at": everything still counts
		}
		int low = this.head;
		int high = this.tail;
		while (low < high) {
			int mid = (low + high) >>> 1;
			if (at - this.times[mid] >= period) {
				low = mid + 1;
			}
			else {
				high = mid;
			}
		}
		return low;
	}

	@Override
	public void prune(WindowSettings settings, long now) {
		long period = settings.periodNanos();
		int first = this.head;
		// Walk the times alone; the running total is read once, at the last entry that leaves.
		while (first < this.tail && now - this.times[first] >= period) {
			first++;
		}
		if (first == this.head) {
			return;
		}
		if (first == this.tail) {
			this.headSequence += first - this.head;
			empty();
			return;
		}
		this.base = this.totals[first - 1];
		this.headSequence += first - this.head;
		this.head = first;
	}

	/** The oldest entry leaves; the running totals of the others stay as they are. */
	private void dropHead() {
		this.base = this.totals[this.head];
		this.head++;
		this.headSequence++;
		if (this.head == this.tail) {
			empty();
		}
	}

	/** No entry left: the next one goes at the start of the arrays, and sets the head's sequence number. */
	private void empty() {
		this.head = 0;
		this.tail = 0;
		this.base = 0;
	}

	@Override
	public long availableAt(WindowSettings settings, long notBefore, long cost) {
		long period = settings.periodNanos();
		long start = Math.max(notBefore, this.lastAdmitted);
		int first = firstCounted(period, start);
		long total = total();
		long needed = total - totalBefore(first) + cost - settings.limit();
		if (needed <= 0) {
			return start;
		}
		// Entries leave oldest first: the call fits once the entry that brings the running total
		// past "needed" has left.
		long target = totalBefore(first) + needed;
		int low = first;
		int high = this.tail;
		while (low < high) {
			int mid = (low + high) >>> 1;
			if (this.totals[mid] >= target) {
				high = mid;
			}
			else {
				low = mid + 1;
			}
		}
		if (low == this.tail) {
			throw new IllegalArgumentException("cost " + cost + " exceeds the window limit of " + settings.limit());
		}
		return Math.max(start, Durations.saturatedAdd(this.times[low], period));
	}

	@Override
	public void add(WindowSettings settings, long at, long cost, long sequence) {
		long total = total();
		if (this.tail == this.times.length) {
			makeRoom();
		}
		if (this.head == this.tail) {
			this.headSequence = sequence;
		}
		this.times[this.tail] = at;
		this.totals[this.tail] = total + cost;
		this.tail++;
		this.lastAdmitted = at;
	}

	/** Moves the entries to the front when half the arrays lie before the head, else doubles them. */
	private void makeRoom() {
		int size = this.tail - this.head;
		if (this.head > 0 && this.head >= size) {
			System.arraycopy(this.times, this.head, this.times, 0, size);
			System.arraycopy(this.totals, this.head, this.totals, 0, size);
		}
		else {
			int capacity = Math.max(2, this.times.length * 2);
			long[] newTimes = new long[capacity];
			long[] newTotals = new long[capacity];
			System.arraycopy(this.times, this.head, newTimes, 0, size);
			System.arraycopy(this.totals, this.head, newTotals, 0, size);
			this.times = newTimes;
			this.totals = newTotals;
		}
		this.head = 0;
		this.tail = size;
	}

	@Override
	public void remove(WindowSettings settings, long sequence, long cost, long addedAt) {
		if (sequence < this.headSequence || sequence - this.headSequence >= this.tail - this.head) {
			return; // the entry has left the window already
		}
		int index = this.head + (int) (sequence - this.headSequence);
		long entryCost = this.totals[index] - totalBefore(index);
		if (entryCost == 0) {
			return;
		}
		if (index == this.head) {
			dropHead();
		}
		else {
			for (int i = index; i < this.tail; i++) {
				this.totals[i] -= entryCost;
			}
			// A reservation given back may lie ahead of calls admitted after it: it takes its
			// predecessor's time, so the times stay in order.
			this.times[index] = this.times[index - 1];
		}
		if (addedAt == this.lastAdmitted) {
			afterLatestGivenBack();
		}
	}

	/**
	 * After the latest call still counted was given back: the one before it becomes the latest,
	 * and the entries given back after that one take its time. A call admitted next may come
	 * before their old times (nobody holds them any more), and the times must stay in order for
	 * the window to find what leaves it. With no call left counted, the log is emptied.
	 */
	private void afterLatestGivenBack() {
		int latest = this.tail - 1;
		while (latest >= this.head && this.totals[latest] == totalBefore(latest)) {
			latest--;
		}
		if (latest < this.head) {
			// Only entries given back: nothing counts, and the next call starts the log again.
			empty();
			this.lastAdmitted = Long.MIN_VALUE;
			return;
		}
		this.lastAdmitted = this.times[latest];
		Arrays.fill(this.times, latest + 1, this.tail, this.lastAdmitted);
	}

	@Override
	public long remaining(WindowSettings settings, long at) {
		long used = total() - totalBefore(firstCounted(settings.periodNanos(), at));
		return Math.max(0, settings.limit() - used);
	}

	@Override
	public long nanosUntilMore(WindowSettings settings, long at) {
		int first = firstCounted(settings.periodNanos(), at);
		long before = totalBefore(first);
		if (total() == before) {
			return 0;
		}
		// More quota comes when the oldest entry that still costs something leaves; entries given
		// back cost nothing.
		int oldest = first;
		if (this.totals[oldest] == before) {
			int high = this.tail - 1;
			while (oldest < high) {
				int mid = (oldest + high) >>> 1;
				if (this.totals[mid] > before) {
					high = mid;
				}
				else {
					oldest = mid + 1;
				}
			}
		}
		return Math.max(0, Durations.saturatedAdd(settings.periodNanos(), this.times[oldest] - at));
	}

	@Override
	public String toString() {
		return "WindowLog" + Arrays.toString(Arrays.copyOfRange(this.times, this.head, this.tail));
	}

}
