package dev.resilience.pool;

import java.time.Duration;

import dev.resilience.internal.DurationText;

/**
 * Thrown when no connection became free before the deadline. The work never ran.
 */
public class CheckoutTimeoutException extends DeadlineExceededException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param pool the pool's name
	 * @param timeout the deadline of the call
	 * @param elapsed the time waited
	 */
	public CheckoutTimeoutException(String pool, Duration timeout, Duration elapsed) {
		super("No connection of pool '" + pool + "' became free within " + DurationText.of(timeout) + " (waited "
				+ DurationText.of(elapsed)
				+ "); the work did not run", pool, timeout, elapsed);
	}

}
