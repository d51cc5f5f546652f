package dev.resilience.benchmarks;

import java.util.Arrays;

import dev.resilience.Ticker;
import dev.resilience.retry.RetryBudgetSettings;

/**
 * The exact retry budget as earlier versions built it, kept as the benchmark's yardstick:
 * under one lock, a log of the time of every first attempt and of every retry in the window,
 * pruned as the window slides. Same rule as {@code RetryBudget}, without its buckets.
 */
final class LockedLogBudget {

	private final RetryBudgetSettings settings;

	private final Ticker ticker;

	private final long windowNanos;

	private final TimeLog firstAttempts = new TimeLog();

	private final TimeLog retries = new TimeLog();

	LockedLogBudget(RetryBudgetSettings settings, Ticker ticker) {
		this.settings = settings;
		this.ticker = ticker;
		this.windowNanos = settings.window().toNanos();
	}

	synchronized void recordFirstAttempt() {
		long now = this.ticker.read();
		this.firstAttempts.prune(now - this.windowNanos);
		this.firstAttempts.add(now);
	}

	synchronized boolean tryRetry() {
		long now = this.ticker.read();
		this.firstAttempts.prune(now - this.windowNanos);
		this.retries.prune(now - this.windowNanos);
		long deposited = (long) Math.floor(this.settings.ratio() * this.firstAttempts.size() + 1e-9);
		if (deposited + this.settings.reserve() - this.retries.size() < 1) {
			return false;
		}
		this.retries.add(now);
		return true;
	}

	/** Times in the order they were added, in a growing array used as a queue. */
	private static final class TimeLog {

		private long[] times = new long[16];

		private int head;

		private int tail;

		void add(long time) {
			if (this.tail == this.times.length) {
				int size = this.tail - this.head;
				long[] from = this.times;
				if (this.head < size) {
					this.times = Arrays.copyOf(from, from.length * 2);
				}
				System.arraycopy(from, this.head, this.times, 0, size);
				this.head = 0;
				this.tail = size;
			}
			this.times[this.tail++] = time;
		}

		/** Drops the times at or before {@code oldest}: they have left the window. */
		void prune(long oldest) {
			while (this.head < this.tail && this.times[this.head] <= oldest) {
				this.head++;
			}
		}

		int size() {
			return this.tail - this.head;
		}

	}

}
