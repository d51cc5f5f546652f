package dev.resilience.sample.demo;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.Throttle;

/**
 * Counts the pauses of each limiter's keys, so the fleet demo can tell how often the partner's
 * {@code 429} paused its API key.
 */
@Component
public class PauseCounter implements RateLimitListener {

	private final Map<String, AtomicInteger> pauses = new ConcurrentHashMap<>();

	@Override
	public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
		// only pauses are counted
	}

	@Override
	public void onPause(RateLimiter limiter, String key, Duration pause, Throttle.Cause cause) {
		this.pauses.computeIfAbsent(limiter.getName() + "/" + key, (name) -> new AtomicInteger()).incrementAndGet();
	}

	@Override
	public boolean admissionsWithoutWait() {
		return false;
	}

	int take(String limiter, String key) {
		AtomicInteger count = this.pauses.remove(limiter + "/" + key);
		return (count != null) ? count.get() : 0;
	}

}
