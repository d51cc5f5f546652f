package dev.resilience;

import java.util.concurrent.TimeUnit;

/**
 * Blocks the calling thread for a while. Algorithms that wait take a sleeper, so that tests can
 * advance a fake {@link Ticker} instead of sleeping for real.
 */
@FunctionalInterface
public interface Sleeper {

	/**
	 * Blocks for the given number of nanoseconds; returns at once when it is zero or negative.
	 * @param nanos how long to block
	 * @throws InterruptedException if the thread is interrupted while blocked
	 */
	void sleep(long nanos) throws InterruptedException;

	/**
	 * Returns the sleeper that blocks the thread for real.
	 * @return the system sleeper
	 */
	static Sleeper system() {
		return (nanos) -> {
			if (nanos > 0) {
				TimeUnit.NANOSECONDS.sleep(nanos);
			}
		};
	}

}
