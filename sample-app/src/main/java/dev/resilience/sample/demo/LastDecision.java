package dev.resilience.sample.demo;

import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiter;

/**
 * Remembers, per thread, the last rate-limit decision, so the demo can tell an admitted call
 * from one that waited for its slot.
 */
@Component
public class LastDecision implements RateLimitListener {

	private final ThreadLocal<@Nullable RateLimitDecision> last = new ThreadLocal<>();

	@Override
	public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
		this.last.set(decision);
	}

	@Nullable RateLimitDecision take() {
		RateLimitDecision decision = this.last.get();
		this.last.remove();
		return decision;
	}

}
