package dev.resilience.retry;

import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.DoubleSupplier;

import dev.resilience.internal.Durations;

/**
 * The delays of one call's retries, apart from the loop that waits them (the idea of the Rust
 * crate {@code again}'s {@code BackoffIter}): the backoff's {@code n}-th delay, jittered, for
 * {@code n} from 1 to {@code maxRetries}; then no more. Not thread safe: one per call. Get one
 * from {@link RetryPolicy#delays(DoubleSupplier)}.
 */
final class RetryDelays implements Iterator<Duration> {

	private final BackoffPolicy backoff;

	private final Jitter jitter;

	private final int maxRetries;

	private final DoubleSupplier random;

	private final long base;

	private final long cap;

	private int retries;

	private long previous;

	RetryDelays(BackoffPolicy backoff, Jitter jitter, int maxRetries, DoubleSupplier random) {
		this.backoff = backoff;
		this.jitter = jitter;
		this.maxRetries = maxRetries;
		this.random = random;
		this.base = Durations.saturatedNanos(backoff.delay());
		this.cap = Durations.saturatedNanos(backoff.maxDelay());
		this.previous = this.base;
	}

	/**
	 * Returns whether another retry is allowed.
	 * @return {@code false} once {@code maxRetries} delays were given
	 */
	@Override
	public boolean hasNext() {
		return this.retries < this.maxRetries;
	}

	/**
	 * Returns the delay before the next retry.
	 * @return the delay, between zero and the maximum delay
	 * @throws NoSuchElementException when {@code maxRetries} delays were given
	 */
	@Override
	public Duration next() {
		if (!hasNext()) {
			throw new NoSuchElementException("No retry is left after " + this.maxRetries);
		}
		this.retries++;
		long delay = Durations.saturatedNanos(this.backoff.delayAfter(this.retries));
		long jittered = this.jitter.apply(delay, this.previous, this.base, this.cap, this.random.getAsDouble());
		this.previous = jittered;
		return Duration.ofNanos(jittered);
	}

}
