package dev.resilience.autoconfigure.web;

import dev.resilience.autoconfigure.ratelimit.RateLimitDecisionRecorder;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiter;

/**
 * Records a call admitted outside Reactor for the {@code RateLimit} header fields of the WebFlux
 * exchange the deciding thread works for. That thread knows its exchange while the exchange's
 * handling is subscribed (a blocking or {@code CompletableFuture} method called synchronously by
 * a handler whose arguments were ready, as for a {@code GET}), and wherever context-propagation
 * restores the recorder: Reactor's automatic context propagation, or a continuation that restores
 * a snapshot captured on such a thread. A call decided on another thread without that (a handler
 * invoked once a request body arrived, without automatic context propagation) adds no items.
 * <p>
 * Creating one registers the current recorder with context-propagation's global
 * {@code ContextRegistry} under the key {@code RateLimitDecisionRecorder.class}.
 */
public class RateLimitWebFluxListener implements RateLimitListener {

	/** Creates the listener and registers the current recorder with context-propagation. */
	public RateLimitWebFluxListener() {
		RateLimitExchangeDecisions.registerThreadLocalAccessor();
	}

	@Override
	public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
		if (!decision.isPermitted() || decision.getQuotas().isEmpty()) {
			return;
		}
		RateLimitDecisionRecorder recorder = RateLimitExchangeDecisions.current();
		if (recorder != null) {
			recorder.record(decision);
		}
	}

}
