package dev.resilience.pool;

import java.time.Duration;

/**
 * Told of every checkout and every operation of a pool, such as to record meters. Called on the
 * caller's thread, or for an asynchronous call on the thread that ends the wait or the work; it
 * must be quick and should not throw: one that throws is logged and skipped, and the call's
 * connection and outcome are unaffected.
 */
public interface ConnectionPoolListener {

	/**
	 * Called when a call got a connection or gave up waiting for one.
	 * @param pool the pool's name
	 * @param outcome whether a connection came in time
	 * @param waited the time waited
	 */
	default void onCheckout(String pool, CheckoutOutcome outcome, Duration waited) {
	}

	/**
	 * Called when the work with a connection returned, threw or timed out.
	 * @param pool the pool's name
	 * @param outcome how the work ended for the caller
	 * @param duration the time from handing out the connection until the caller got the outcome
	 */
	default void onOperation(String pool, OperationOutcome outcome, Duration duration) {
	}

	/** How a checkout ended. */
	enum CheckoutOutcome {

		/** A connection came in time. */
		ACQUIRED,

		/** The deadline passed first. */
		TIMEOUT

	}

	/** How an operation ended for the caller. */
	enum OperationOutcome {

		/** The work returned. */
		SUCCESS,

		/** The work threw. */
		ERROR,

		/** The deadline passed first. */
		TIMEOUT

	}

}
