package dev.resilience.pool;

import java.time.Duration;

import dev.resilience.internal.DurationText;

/**
 * Thrown at the deadline when the work was still running. The work is interrupted and its
 * connection is never handed out again; whether the work had an effect is unknown.
 */
public class OperationTimeoutException extends DeadlineExceededException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param pool the pool's name
	 * @param timeout the deadline of the call
	 * @param elapsed the time from the start of the call, checkout included
	 */
	public OperationTimeoutException(String pool, Duration timeout, Duration elapsed) {
		super("Work with a connection of pool '" + pool + "' did not finish within " + DurationText.of(timeout)
				+ " (gave up after " + DurationText.of(elapsed) + ")", pool, timeout, elapsed);
	}

}
