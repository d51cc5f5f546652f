package dev.resilience.ratelimit.store;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.Durations;
import dev.resilience.ratelimit.WindowSettings;

/**
 * An approximate sliding window in constant memory: the cost admitted in the current and the
 * previous fixed window, the previous one weighed by how much of it the sliding window still covers
 * (the "sliding window counter" of Cloudflare and Redis rate limiters). It assumes calls in the
 * previous window were spread evenly, so it may admit a little more or less than {@code limit} in a
 * given interval; use {@link dev.resilience.ratelimit.WindowAlgorithm#LOG} to be exact. The fixed
 * windows of a key start at its first use. Create one with {@link SlidingWindow#create}.
 * <p>
 * A call reserved ahead of the last prune moves the fixed windows ahead, which drops counts that
 * the calls before it still need once it is given back. So from the first such reservation on,
 * the counter keeps the counts before it ({@link #base}) and a journal of the calls admitted
 * since (each one ahead too, as nobody is admitted before the latest call): giving one of them
 * back replays the others on the counts before them, exactly as if it had never been made, in
 * whatever order calls are given back. A journal entry leaves once its time is reached; a call
 * admitted by then is given back by its counts alone, which is exact, as it moved no window past
 * the time of a decision. The journal keeps the latest {@value #JOURNAL_CALLS} calls waiting for
 * their slot, so that memory stays constant per key: an older one leaves it early, and is given
 * back by its counts alone, which leaves the windows where later calls moved them.
 */
final class WindowCounter implements SlidingWindow {

	/** Longs per journal entry: sequence number, time, cost. */
	private static final int ENTRY = 3;

	/** The most calls the journal keeps. */
	static final int JOURNAL_CALLS = 8;

	private static final long[] NONE = new long[0];

	private final Counts counts;

	/** The counts before the journal's first call, {@code null} while the journal is empty. */
	private @Nullable Counts base;

	/** The calls admitted ahead of the last prune and since: sequence number, time and cost each. */
	private long[] journal = NONE;

	private int journalLength;

	/** The latest time the window was pruned at: the time of the latest decision. */
	private long prunedAt;

	WindowCounter(long now) {
		this.counts = new Counts(now);
		this.prunedAt = now;
	}

	@Override
	public void prune(WindowSettings settings, long now) {
		long period = settings.periodNanos();
		this.prunedAt = Math.max(this.prunedAt, now);
		this.counts.prune(period, now);
		Counts base = this.base;
		if (base == null) {
			return;
		}
		int reached = 0;
		while (reached < this.journalLength && this.journal[reached + 1] <= now) {
			reached += ENTRY;
		}
		foldIntoBase(period, base, reached);
	}

	/** Moves the journal's first calls, {@code longs} of it, into the counts before it. */
	private void foldIntoBase(long period, Counts base, int longs) {
		for (int i = 0; i < longs; i += ENTRY) {
			base.add(period, this.journal[i + 1], this.journal[i + 2]);
		}
		dropJournal(0, longs);
	}

	@Override
	public long availableAt(WindowSettings settings, long notBefore, long cost) {
		long period = settings.periodNanos();
		Counts counts = this.counts;
		long from = Math.max(Math.max(notBefore, counts.last), counts.start);
		long windowStart = counts.windowStart(period, from);
		long previous = counts.previousAt(period, windowStart);
		long current = counts.currentAt(windowStart);
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

	private static double estimate(long period, long windowStart, long previous, long current, long at) {
		double previousWeight = (double) (period - (at - windowStart)) / period;
		return previous * previousWeight + current;
	}

	@Override
	public void add(WindowSettings settings, long at, long cost, long sequence) {
		long period = settings.periodNanos();
		Counts base = this.base;
		if (base == null) {
			if (at <= this.prunedAt) {
				this.counts.add(period, at, cost);
				return;
			}
			base = this.counts.copy();
			this.base = base;
			this.journal = new long[JOURNAL_CALLS * ENTRY];
		}
		else if (this.journalLength == this.journal.length) {
			// Full: the oldest call leaves it early (see the class comment)
			foldIntoBase(period, base, ENTRY);
		}
		this.journal[this.journalLength] = sequence;
		this.journal[this.journalLength + 1] = at;
		this.journal[this.journalLength + 2] = cost;
		this.journalLength += ENTRY;
		this.counts.add(period, at, cost);
	}

	@Override
	public void remove(WindowSettings settings, long sequence, long cost, long addedAt) {
		long period = settings.periodNanos();
		Counts base = this.base;
		for (int i = 0; base != null && i < this.journalLength; i += ENTRY) {
			if (this.journal[i] == sequence) {
				dropJournal(i, i + ENTRY);
				replay(period, base);
				return;
			}
		}
		this.counts.remove(period, cost, addedAt);
		if (base != null) {
			// Made before the journal's first call, so counted in the counts before it too.
			base.remove(period, cost, addedAt);
		}
	}

	/** The counts as the calls of the journal left them, starting from those before it. */
	private void replay(long period, Counts base) {
		this.counts.set(base);
		for (int i = 0; i < this.journalLength; i += ENTRY) {
			this.counts.add(period, this.journal[i + 1], this.journal[i + 2]);
		}
		this.counts.prune(period, this.prunedAt);
	}

	/** Drops the journal's longs from {@code from} to {@code to}; forgets {@link #base} once it is empty. */
	private void dropJournal(int from, int to) {
		if (from == to) {
			return;
		}
		System.arraycopy(this.journal, to, this.journal, from, this.journalLength - to);
		this.journalLength -= to - from;
		if (this.journalLength == 0) {
			this.base = null;
			this.journal = NONE;
		}
	}

	@Override
	public long remaining(WindowSettings settings, long at) {
		long period = settings.periodNanos();
		Counts counts = this.counts;
		long windowStart = counts.windowStart(period, Math.max(at, counts.start));
		double used = estimate(period, windowStart, counts.previousAt(period, windowStart),
				counts.currentAt(windowStart), Math.max(at, windowStart));
		return Math.max(0, settings.limit() - (long) Math.ceil(used));
	}

	@Override
	public long nanosUntilMore(WindowSettings settings, long at) {
		long period = settings.periodNanos();
		Counts counts = this.counts;
		long windowStart = counts.windowStart(period, Math.max(at, counts.start));
		return (counts.previousAt(period, windowStart) + counts.currentAt(windowStart) == 0) ? 0
				: Math.max(0, period - (at - windowStart));
	}

	/**
	 * The cost admitted in two fixed windows, and the latest admission.
	 */
	private static final class Counts {

		/** The start of the current fixed window. */
		long start;

		long previous;

		long current;

		/** The latest admission: nobody is admitted before it (first come, first served). */
		long last = Long.MIN_VALUE;

		Counts(long start) {
			this.start = start;
		}

		Counts copy() {
			Counts copy = new Counts(this.start);
			copy.set(this);
			return copy;
		}

		void set(Counts other) {
			this.start = other.start;
			this.previous = other.previous;
			this.current = other.current;
			this.last = other.last;
		}

		/** The start of the fixed window holding {@code at}, for {@code at} not before {@link #start}. */
		long windowStart(long period, long at) {
			return this.start + ((at - this.start) / period) * period;
		}

		/** The previous window's count as seen from the fixed window starting at {@code windowStart}. */
		long previousAt(long period, long windowStart) {
			if (windowStart == this.start) {
				return this.previous;
			}
			return (windowStart - this.start == period) ? this.current : 0;
		}

		long currentAt(long windowStart) {
			return (windowStart == this.start) ? this.current : 0;
		}

		void prune(long period, long now) {
			if (now - this.start >= period) {
				long newStart = windowStart(period, now);
				this.previous = previousAt(period, newStart);
				this.current = 0;
				this.start = newStart;
			}
		}

		void add(long period, long at, long cost) {
			prune(period, at);
			this.current += cost;
			this.last = Math.max(this.last, at);
		}

		/** Takes a call's cost off the fixed window that holds it, if it still counts. */
		void remove(long period, long cost, long addedAt) {
			if (addedAt >= this.start && addedAt - this.start < period) {
				this.current = Math.max(0, this.current - cost);
			}
			else if (addedAt < this.start && this.start - addedAt <= period) {
				this.previous = Math.max(0, this.previous - cost);
			}
		}

	}

}
