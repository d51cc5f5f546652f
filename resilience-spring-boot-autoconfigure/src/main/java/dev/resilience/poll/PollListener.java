package dev.resilience.poll;

/**
 * Told of every poll that ends fulfilled or exhausted, once, when its last attempt is made (a
 * poll ended by an exception of the polled call, or interrupted, is not reported). Listeners run
 * on the thread of the last attempt and must be quick. An exception a listener throws is logged
 * and does not change the poll's outcome.
 */
@FunctionalInterface
public interface PollListener {

	/**
	 * Called when a poll ends.
	 * @param name the poller's name: the annotation's {@code name}, or {@code ClassName.method}
	 * for an unnamed {@link PollUntil @PollUntil}
	 * @param history what happened; {@link PollHistory#fulfilled()} tells the outcome
	 */
	void onPollEnded(String name, PollHistory<?> history);

}
