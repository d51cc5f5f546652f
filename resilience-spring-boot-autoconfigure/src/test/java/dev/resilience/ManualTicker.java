package dev.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} that moves only when told to, for exact time-dependent tests. Thread safe.
 * Its {@link #sleeper()} advances the ticker instead of blocking and records each sleep.
 */
public final class ManualTicker implements Ticker {

	private final AtomicLong nanos;

	private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

	/** Creates a ticker reading 0. */
	public ManualTicker() {
		this(0);
	}

	/**
	 * Creates a ticker with the given first reading.
	 * @param startNanos the first reading
	 */
	public ManualTicker(long startNanos) {
		this.nanos = new AtomicLong(startNanos);
	}

	@Override
	public long read() {
		return this.nanos.get();
	}

	/**
	 * Moves the ticker forward.
	 * @param duration how far, not negative
	 * @return the new reading
	 */
	public long advance(Duration duration) {
		return advanceNanos(duration.toNanos());
	}

	/**
	 * Moves the ticker forward.
	 * @param delta how far in nanoseconds, not negative
	 * @return the new reading
	 */
	public long advanceNanos(long delta) {
		if (delta < 0) {
			throw new IllegalArgumentException("a ticker never goes back, but delta was " + delta);
		}
		return this.nanos.addAndGet(delta);
	}

	/**
	 * Sets the reading, for tests that write absolute times.
	 * @param nanos the new reading
	 */
	public void set(long nanos) {
		this.nanos.set(nanos);
	}

	/**
	 * Sets the reading to a time given as a duration since 0.
	 * @param sinceZero the new reading
	 */
	public void set(Duration sinceZero) {
		set(sinceZero.toNanos());
	}

	/**
	 * Returns a sleeper that advances this ticker by the requested time instead of blocking.
	 * Sleeps of zero or less return at once and are not recorded.
	 * @return the sleeper
	 */
	public Sleeper sleeper() {
		return (nanos) -> {
			if (nanos > 0) {
				this.sleeps.add(Duration.ofNanos(nanos));
				advanceNanos(nanos);
			}
		};
	}

	/**
	 * Returns the sleeps of {@link #sleeper()} so far, in order.
	 * @return the sleeps
	 */
	public List<Duration> sleeps() {
		return List.copyOf(this.sleeps);
	}

}
