package dev.resilience.autoconfigure.ratelimit;

import dev.resilience.ratelimit.RateLimitDecision;

/**
 * Told of the decisions that admitted a reactive call, so that they can reach the response of
 * the WebFlux exchange that made it: a reactive call has no request thread to carry them.
 * <p>
 * The Reactor driver for {@code @RateLimited} {@code Mono} and {@code Flux} methods looks the
 * recorder up in the subscriber's Reactor {@code Context} under the key
 * {@code RateLimitDecisionRecorder.class} and, when there is one, calls {@link #record} with
 * each decision that admitted a subscription (one per limiter on the method). In a WebFlux
 * application the starter's web filter puts one there for every exchange and writes the
 * recorded decisions as the {@code RateLimit-Policy} and {@code RateLimit} header fields before
 * the response commits.
 * <p>
 * Implementations must be thread-safe and quick: {@code record} may be called from any thread,
 * including an event loop, and must never block.
 */
@FunctionalInterface
public interface RateLimitDecisionRecorder {

	/**
	 * Records a decision that admitted a call. A later decision of the same limiter replaces an
	 * earlier one: the response shows the state after the last call.
	 * @param decision the admitting decision
	 */
	void record(RateLimitDecision decision);

}
