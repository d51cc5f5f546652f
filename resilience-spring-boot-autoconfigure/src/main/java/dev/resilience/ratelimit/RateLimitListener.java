package dev.resilience.ratelimit;

/**
 * Told of every final decision of every limiter: once per limiter and call, after any wait.
 * Listeners run on the caller's thread and must be quick. An exception a listener throws is
 * logged and does not change the call's outcome.
 */
@FunctionalInterface
public interface RateLimitListener {

	/**
	 * Called with a limiter's decision for one call: permitted (with a zero
	 * {@link RateLimitDecision#getWait() wait}), waited (permitted after a wait) or rejected.
	 * @param limiter the limiter that decided
	 * @param decision the decision
	 */
	void onDecision(RateLimiter limiter, RateLimitDecision decision);

	/**
	 * Whether this listener is told of the decisions that admit a call at once, without a wait:
	 * the most frequent ones. A listener that answers {@code false} is told only of waits and
	 * rejections, and costs an admitted call nothing. Asked once, when the registry is built.
	 * @return {@code true} by default
	 */
	default boolean admissionsWithoutWait() {
		return true;
	}

}
