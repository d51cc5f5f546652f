package dev.resilience.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.resilience.Sleeper;

/**
 * A {@link Sleeper} that does not block: it records each positive sleep and advances the
 * {@link TestTicker} by exactly that much.
 */
public final class TestSleeper implements Sleeper {

	private final TestTicker ticker;

	private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

	public TestSleeper(TestTicker ticker) {
		this.ticker = ticker;
	}

	@Override
	public void sleep(long nanos) {
		if (nanos > 0) {
			this.sleeps.add(Duration.ofNanos(nanos));
			this.ticker.advance(Duration.ofNanos(nanos));
		}
	}

	/**
	 * Returns every positive sleep, in order.
	 * @return the sleeps
	 */
	public List<Duration> getSleeps() {
		return List.copyOf(this.sleeps);
	}

}
