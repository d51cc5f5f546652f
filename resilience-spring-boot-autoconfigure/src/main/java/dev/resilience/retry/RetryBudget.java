package dev.resilience.retry;

import dev.resilience.Ticker;
import dev.resilience.ratelimit.SlidingWindow;
import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.WindowSettings;

/**
 * The retry budget of one policy, shared by all its callers in this instance: first attempts
 * deposit {@code ratio} of a retry each, every retry withdraws one, and only what happened in
 * the last window counts (see {@link RetryBudgetSettings}). Both are kept in exact sliding
 * windows, the rate limiter's {@link SlidingWindow}s. Thread safe.
 */
public final class RetryBudget {

	/** A window that never refuses: it only counts. */
	private final WindowSettings counting;

	private final RetryBudgetSettings settings;

	private final Ticker ticker;

	private final SlidingWindow firstAttempts;

	private final SlidingWindow retries;

	private long firstAttemptSequence;

	private long retrySequence;

	/**
	 * Creates an empty budget.
	 * @param settings the budget's settings
	 * @param ticker the clock the window slides by
	 */
	public RetryBudget(RetryBudgetSettings settings, Ticker ticker) {
		this.settings = settings;
		this.ticker = ticker;
		this.counting = new WindowSettings(Long.MAX_VALUE, settings.window());
		long now = ticker.read();
		this.firstAttempts = SlidingWindow.create(WindowAlgorithm.LOG, now);
		this.retries = SlidingWindow.create(WindowAlgorithm.LOG, now);
	}

	/**
	 * Returns the budget's settings.
	 * @return the settings
	 */
	public RetryBudgetSettings getSettings() {
		return this.settings;
	}

	/** Records the first attempt of a call, which deposits {@code ratio} of a retry. */
	public synchronized void recordFirstAttempt() {
		long now = this.ticker.read();
		this.firstAttempts.prune(this.counting, now);
		this.firstAttempts.add(this.counting, now, 1, this.firstAttemptSequence++);
	}

	/**
	 * Withdraws one retry when the budget allows it.
	 * @return whether the retry may be made
	 */
	public synchronized boolean tryRetry() {
		long now = this.ticker.read();
		if (available(now) < 1) {
			return false;
		}
		this.retries.add(this.counting, now, 1, this.retrySequence++);
		return true;
	}

	/**
	 * Returns how many retries the budget allows now.
	 * @return the retries left, never negative
	 */
	public synchronized long available() {
		return available(this.ticker.read());
	}

	private long available(long now) {
		this.firstAttempts.prune(this.counting, now);
		this.retries.prune(this.counting, now);
		// The epsilon keeps 0.1 * 30 from rounding down to 2.
		long deposited = (long) Math.floor(this.settings.ratio() * count(this.firstAttempts, now) + 1e-9);
		return Math.max(0, deposited + this.settings.reserve() - count(this.retries, now));
	}

	private long count(SlidingWindow window, long now) {
		return Long.MAX_VALUE - window.remaining(this.counting, now);
	}

}
