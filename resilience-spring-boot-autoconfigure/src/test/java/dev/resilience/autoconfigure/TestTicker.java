package dev.resilience.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.resilience.Ticker;

/**
 * A {@link Ticker} that moves only when a test advances it (or a {@link TestSleeper} sleeps on
 * it). It starts far from zero, so that code assuming readings start at zero is caught.
 */
public final class TestTicker implements Ticker {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);

	@Override
	public long read() {
		return this.nanos.get();
	}

	/**
	 * Moves the clock forward.
	 * @param duration how far
	 */
	public void advance(Duration duration) {
		this.nanos.addAndGet(duration.toNanos());
	}

}
