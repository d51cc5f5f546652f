package dev.resilience.ratelimit.store;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;

/** Limiters on a manual clock, whose waits advance the clock instead of sleeping. */
final class TestLimiters {

	private TestLimiters() {
	}

	static RateLimiter onManualClock(ManualTicker ticker, String name, RateLimiterSettings settings) {
		return StoreRateLimiterRegistry.builder()
			.ticker(ticker)
			.sleeper(ticker.sleeper())
			.limiter(name, settings)
			.build()
			.get(name);
	}

}
