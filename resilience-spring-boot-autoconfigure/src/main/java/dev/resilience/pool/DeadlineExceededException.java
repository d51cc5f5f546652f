package dev.resilience.pool;

import java.time.Duration;

/**
 * Thrown when a call with a connection did not finish within its deadline: either no connection
 * came in time ({@link CheckoutTimeoutException}) or the work was still running
 * ({@link OperationTimeoutException}).
 */
public class DeadlineExceededException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String pool;

	private final Duration timeout;

	private final Duration elapsed;

	/**
	 * Creates the exception.
	 * @param message the message
	 * @param pool the pool's name
	 * @param timeout the deadline of the call
	 * @param elapsed the time from the start of the call until it gave up
	 */
	protected DeadlineExceededException(String message, String pool, Duration timeout, Duration elapsed) {
		super(message);
		this.pool = pool;
		this.timeout = timeout;
		this.elapsed = elapsed;
	}

	/**
	 * Returns the name of the pool.
	 * @return the pool's name
	 */
	public String getPool() {
		return this.pool;
	}

	/**
	 * Returns the deadline of the call, checkout and execution together.
	 * @return the timeout
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Returns the time from the start of the call until it gave up.
	 * @return the elapsed time
	 */
	public Duration getElapsed() {
		return this.elapsed;
	}

}
