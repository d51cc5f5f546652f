package dev.resilience.ratelimit;

import java.time.Duration;

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
	 * Called when a key of a limiter is paused (SPEC §10): by a partner's throttle signal or by
	 * hand. Does nothing by default.
	 * @param limiter the limiter whose key is paused
	 * @param key the key; keep it in the process unless the application asks for keys
	 * @param pause the pause applied, after {@code max-pause}
	 * @param cause where the pause's length came from
	 */
	default void onPause(RateLimiter limiter, String key, Duration pause, Throttle.Cause cause) {
	}

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
