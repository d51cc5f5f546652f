package dev.resilience.retry;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * One bucket of a {@link RetryBudget}'s window, the current one: the counters of the bucket that
 * callers are adding to, and, frozen when it was opened, what the buckets before it hold. Time
 * is cut into buckets of {@code width} nanoseconds from the budget's origin; bucket {@code b}
 * covers {@code [origin + b * width, origin + (b + 1) * width)}.
 * <p>
 * Rules, each erring towards fewer retries than the exact rule allows:
 * <ul>
 * <li>First attempts of bucket {@code b} deposit in every instant of the current bucket
 * {@code c} only if the whole of {@code b} is younger than the window there:
 * {@code (c + 1 - b) * width <= window}. The bucket the window's edge crosses deposits
 * nothing, although some of its first attempts are still inside.</li>
 * <li>Retries of bucket {@code b} count while the latest of them, {@code lastRetryAt}, is
 * inside the window; all of them then, although the oldest may have left.</li>
 * </ul>
 * Which buckets count is worked out once, when the bucket opens, so a decision adds a few
 * numbers and does not walk the history. Only the retries whose bucket's latest retry leaves the
 * window during the current bucket (at most two buckets) are checked against the time.
 * <p>
 * The history arrays are indexed by age: index {@code a} holds bucket {@code epoch - 1 - a}.
 * They are never written after construction, only copied, shifted, into the next bucket's: a
 * few hundred numbers once per bucket width, which keeps every bucket's state immutable but for
 * its own live counters. Thread safe.
 */
final class RetryBudgetWindow {

	/** The bit the retry count carries once the bucket is closed: no retry may be added to it. */
	private static final long SEALED = Long.MIN_VALUE;

	/** The live retry words as one array's elements, compare-and-set in place. */
	private static final VarHandle LIVE = MethodHandles.arrayElementVarHandle(long[].class);

	/** Where the retry count lies in {@link #live}: a cache line of padding on either side. */
	private static final int RETRIES = 8;

	/** Where the latest retry's time lies in {@link #live}. */
	private static final int LAST_RETRY_AT = 9;

	/** The bucket's number, counted from the budget's origin. */
	final long epoch;

	/** When the bucket starts, a reading of the budget's ticker. */
	final long start;

	/** First attempts of the buckets before this one, by age. */
	private final long[] firstAttemptsByAge;

	/** Retries granted in the buckets before this one, by age. */
	private final long[] retriesByAge;

	/** The latest retry of each bucket before this one, by age; meaningless where there was none. */
	private final long[] lastRetryAtByAge;

	/** The first attempts of the buckets before this one that deposit throughout this one. */
	private final long pastDeposits;

	/** The retries of the buckets before this one that count throughout this one. */
	private final long pastRetries;

	/** The retries of buckets whose latest retry leaves the window during this one... */
	private final long[] leavingRetries;

	/** ...and when each of those latest retries was made. */
	private final long[] leavingAt;

	/*
	 * The live counters. Every call adds a first attempt, so those go to a LongAdder: callers on
	 * different cores add to different cells instead of fighting over one word. Retries are
	 * granted one by one against the budget, so they are a single word changed by compare-and-set
	 * (its check and its increment must be one step); closing the bucket sets SEALED in the same
	 * word, so a retry is either counted before the bucket closes or tried again in the next one.
	 * That word and the latest retry's time sit in the middle of an array padded by a cache line
	 * on either side: a granted retry then does not evict the fields above, which every call reads.
	 */
	final LongAdder firstAttempts = new LongAdder();

	private final long[] live = new long[RETRIES + 10];

	private RetryBudgetWindow(long epoch, long start, long[] firstAttemptsByAge, long[] retriesByAge,
			long[] lastRetryAtByAge, long windowNanos, long width) {
		this.epoch = epoch;
		this.start = start;
		// No retry yet. Starting from the bucket's start, the latest is never earlier than it.
		this.live[LAST_RETRY_AT] = start;
		this.firstAttemptsByAge = firstAttemptsByAge;
		this.retriesByAge = retriesByAge;
		this.lastRetryAtByAge = lastRetryAtByAge;
		// (age + 2) * width <= window, in a form that cannot overflow.
		long depositingAges = windowNanos / width - 1;
		long deposits = 0;
		long counted = 0;
		// Each bucket's latest retry lies inside it, and those that leave during this bucket lie
		// within a bucket's width of each other: two buckets at most.
		int leaving = 0;
		long[] leavingRetries = new long[2];
		long[] leavingAt = new long[2];
		long end = start + width;
		for (int age = 0; age < firstAttemptsByAge.length; age++) {
			if (age < depositingAges) {
				deposits = saturatedAdd(deposits, firstAttemptsByAge[age]);
			}
			long retried = retriesByAge[age];
			if (retried == 0) {
				continue;
			}
			long at = lastRetryAtByAge[age];
			if (end - 1 - at < windowNanos) {
				counted = saturatedAdd(counted, retried); // inside for every instant of this bucket
			}
			else if (start - at < windowNanos) {
				leavingRetries[leaving] = retried; // leaves during this bucket
				leavingAt[leaving++] = at;
			}
		}
		this.pastDeposits = deposits;
		this.pastRetries = counted;
		this.leavingRetries = leavingRetries;
		this.leavingAt = leavingAt;
	}

	/**
	 * Opens the first bucket of a budget: nothing before it.
	 * @param start when the bucket starts
	 * @param history how many buckets before the current one may still count
	 * @param windowNanos the budget's window
	 * @param width the width of a bucket
	 * @return the bucket
	 */
	static RetryBudgetWindow first(long start, int history, long windowNanos, long width) {
		return new RetryBudgetWindow(0, start, new long[history], new long[history], new long[history], windowNanos,
				width);
	}

	/**
	 * Opens a later bucket after this one, which must be {@linkplain #seal() sealed}. Pure: this
	 * bucket is left as it is.
	 * @param epoch the new bucket's number, greater than this one's
	 * @param origin the start of bucket 0
	 * @param windowNanos the budget's window
	 * @param width the width of a bucket
	 * @return the new bucket
	 */
	RetryBudgetWindow next(long epoch, long origin, long windowNanos, long width) {
		int history = this.firstAttemptsByAge.length;
		long[] firstAttempts = new long[history];
		long[] retried = new long[history];
		long[] lastRetryAt = new long[history];
		// This bucket is age gap - 1 in the new one; a bucket of age a here is age a + gap there.
		long gap = epoch - this.epoch;
		if (gap <= history) {
			int shift = (int) gap;
			firstAttempts[shift - 1] = this.firstAttempts.sum();
			retried[shift - 1] = retries();
			lastRetryAt[shift - 1] = (long) LIVE.getVolatile(this.live, LAST_RETRY_AT);
			int kept = history - shift;
			System.arraycopy(this.firstAttemptsByAge, 0, firstAttempts, shift, kept);
			System.arraycopy(this.retriesByAge, 0, retried, shift, kept);
			System.arraycopy(this.lastRetryAtByAge, 0, lastRetryAt, shift, kept);
		}
		return new RetryBudgetWindow(epoch, origin + epoch * width, firstAttempts, retried, lastRetryAt, windowNanos,
				width);
	}

	/**
	 * Returns the first attempts that deposit at any instant of this bucket.
	 * @return the first attempts counted so far
	 */
	long deposits() {
		return saturatedAdd(this.pastDeposits, this.firstAttempts.sum());
	}

	/**
	 * Returns the retries that count against the budget at {@code now}.
	 * @param now a reading of the budget's ticker
	 * @param retries this bucket's retries, as read from {@link #retries()} or an unsealed {@link #retryWord()}
	 * @param windowNanos the budget's window
	 * @return the retries made
	 */
	long spent(long now, long retries, long windowNanos) {
		long spent = saturatedAdd(this.pastRetries, retries);
		for (int i = 0; i < this.leavingAt.length; i++) {
			if (now - this.leavingAt[i] < windowNanos) {
				spent = saturatedAdd(spent, this.leavingRetries[i]);
			}
		}
		return spent;
	}

	/**
	 * Returns the retries granted in this bucket, sealed or not.
	 * @return the count
	 */
	long retries() {
		return (long) LIVE.getVolatile(this.live, RETRIES) & ~SEALED;
	}

	/**
	 * Returns the word retries are granted by: their count, negative once the bucket is sealed.
	 * @return the word
	 */
	long retryWord() {
		return (long) LIVE.getVolatile(this.live, RETRIES);
	}

	/**
	 * Grants one retry made at {@code at}, unless the bucket was sealed when {@code seen} was read,
	 * or another retry was granted or the bucket was sealed since.
	 * @param seen the {@link #retryWord()} the grant was decided on
	 * @param at when the retry is made; a time before the bucket's start counts as its start
	 * @return whether the retry was counted
	 */
	boolean grant(long seen, long at) {
		if (seen < 0) {
			return false; // sealed: the count is final, and so is the time
		}
		// The time goes first: whoever seals the bucket after the count sees it. Readings are
		// compared by their difference, as System.nanoTime's must be: they may wrap around.
		long last = (long) LIVE.getVolatile(this.live, LAST_RETRY_AT);
		while (at - last > 0 && !LIVE.compareAndSet(this.live, LAST_RETRY_AT, last, at)) {
			last = (long) LIVE.getVolatile(this.live, LAST_RETRY_AT);
		}
		return LIVE.compareAndSet(this.live, RETRIES, seen, seen + 1);
	}

	/** Closes the bucket to retries: from now on {@link #grant} fails and the count is final. */
	void seal() {
		long word = (long) LIVE.getVolatile(this.live, RETRIES);
		while (word >= 0 && !LIVE.compareAndSet(this.live, RETRIES, word, word | SEALED)) {
			word = (long) LIVE.getVolatile(this.live, RETRIES);
		}
	}

	static long saturatedAdd(long a, long b) {
		long sum = a + b;
		return (sum < 0) ? Long.MAX_VALUE : sum;
	}

}
