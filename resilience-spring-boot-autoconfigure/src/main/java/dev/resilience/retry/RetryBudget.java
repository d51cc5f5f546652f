package dev.resilience.retry;

import java.util.concurrent.atomic.AtomicReference;

import dev.resilience.Ticker;

/**
 * The retry budget of one policy, shared by all its callers in this instance: first attempts
 * deposit {@code ratio} of a retry each, every retry withdraws one, and only what happened in
 * the last window counts (see {@link RetryBudgetSettings}). Thread safe and lock-free.
 * <p>
 * The window is kept in {@value #BUCKETS} buckets of a hundredth of it each, not as a log of
 * every call, so a budget holds the same few kilobytes at any call rate. Counting by bucket is
 * approximate, and always towards fewer retries: it never grants a retry the exact rule would
 * refuse. A first attempt deposits for at least the window less two buckets (2% of it; less one
 * bucket when the window in nanoseconds is a multiple of 100), and a retry counts against the
 * budget until the latest retry of its bucket leaves the window, at most one bucket (1%) longer
 * than its own. A first attempt recorded while the budget moves to a new bucket may be lost,
 * which can only refuse a retry.
 */
public final class RetryBudget {

	/** The buckets a window is cut into: the approximation is a hundredth of the window. */
	static final int BUCKETS = 100;

	/*
	 * The call path takes no lock. Each call adds to the current bucket's counters; a retry is
	 * granted by one compare-and-set on the current bucket's retry count, decided on a total the
	 * current bucket froze when it opened (what the older buckets hold) plus its own counters.
	 * Moving to a new bucket, once per bucket width, seals the old one and swaps in the new one
	 * with one compare-and-set; first attempts that reach a bucket after it is sealed are lost,
	 * which can only refuse a retry, never grant one too many.
	 */
	private final AtomicReference<RetryBudgetWindow> current;

	private final RetryBudgetSettings settings;

	private final Ticker ticker;

	/** The start of bucket 0: the ticker's reading when the budget was made. */
	private final long origin;

	private final long windowNanos;

	private final long width;

	/** {@link RetryBudgetSettings#reserve()}, worked out once. */
	private final long reserve;

	/**
	 * Creates an empty budget.
	 * @param settings the budget's settings
	 * @param ticker the clock the window slides by
	 */
	public RetryBudget(RetryBudgetSettings settings, Ticker ticker) {
		this.settings = settings;
		this.ticker = ticker;
		this.origin = ticker.read();
		this.windowNanos = nanos(settings);
		this.width = Math.max(1, this.windowNanos / BUCKETS);
		this.reserve = settings.reserve();
		// Older buckets than this hold nothing that can count: their latest retry has left.
		int history = (int) ((this.windowNanos - 1) / this.width + 1);
		this.current = new AtomicReference<>(RetryBudgetWindow.first(this.origin, history, this.windowNanos, this.width));
	}

	/**
	 * Returns the budget's settings.
	 * @return the settings
	 */
	public RetryBudgetSettings getSettings() {
		return this.settings;
	}

	/** Records the first attempt of a call, which deposits {@code ratio} of a retry. */
	public void recordFirstAttempt() {
		windowAt(this.ticker.read()).firstAttempts.increment();
	}

	/**
	 * Withdraws one retry when the budget allows it.
	 * @return whether the retry may be made
	 */
	public boolean tryRetry() {
		long read = this.ticker.read();
		RetryBudgetWindow window = windowAt(read);
		for (;;) {
			long word = window.retryWord();
			if (word < 0) {
				// Sealed by a caller moving to a newer bucket: help it, then decide there.
				window = moveTo(window, window.epoch + 1);
				continue;
			}
			if (available(window, read, word) < 1) {
				return false;
			}
			// A caller that read the clock before the bucket opened retries as of its start (see
			// grant): the retry is counted there, and must not leave the window before the others.
			if (window.grant(word, read)) {
				return true;
			}
		}
	}

	/**
	 * Returns how many retries the budget allows now.
	 * @return the retries left, never negative
	 */
	public long available() {
		long now = this.ticker.read();
		RetryBudgetWindow window = windowAt(now);
		return available(window, now, window.retries());
	}

	private long available(RetryBudgetWindow window, long now, long retries) {
		// The epsilon keeps 0.1 * 30 from rounding down to 2.
		long deposited = (long) Math.floor(this.settings.ratio() * window.deposits() + 1e-9);
		long allowed = RetryBudgetWindow.saturatedAdd(deposited, this.reserve);
		return Math.max(0, allowed - window.spent(now, retries, this.windowNanos));
	}

	/** The current bucket, moved on first if {@code now} lies past it. */
	private RetryBudgetWindow windowAt(long now) {
		RetryBudgetWindow window = this.current.get();
		if (now - window.start < this.width) {
			return window; // the usual case, without a division
		}
		return moveTo(window, Math.floorDiv(now - this.origin, this.width));
	}

	/** The current bucket once it is at least {@code epoch}, given one that was current. */
	private RetryBudgetWindow moveTo(RetryBudgetWindow seen, long epoch) {
		RetryBudgetWindow window = seen;
		while (window.epoch < epoch) {
			window.seal();
			RetryBudgetWindow next = window.next(epoch, this.origin, this.windowNanos, this.width);
			if (this.current.compareAndSet(window, next)) {
				return next;
			}
			window = this.current.get();
		}
		return window;
	}

	private static long nanos(RetryBudgetSettings settings) {
		try {
			return settings.window().toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

}
