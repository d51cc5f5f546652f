package dev.resilience.retry;

import java.util.List;

/**
 * Told of every attempt of a retried call and of how the call ended, such as to record meters.
 * Called on the calling thread, so it must be quick; one that throws is logged and changes
 * nothing.
 */
public interface RetryListener {

	/**
	 * Called after each attempt.
	 * @param name the retry's name: the policy's, or {@code ClassName.method} when unnamed
	 * @param attempt the attempt
	 */
	default void onAttempt(String name, RetryAttempt attempt) {
	}

	/**
	 * Called once when the call ends, after its last attempt.
	 * @param name the retry's name
	 * @param outcome how it ended
	 * @param attempts every attempt, in order
	 */
	default void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
	}

}
