package dev.resilience.ratelimit;

import dev.resilience.ManualTicker;

/** Limiters on a manual clock, whose waits advance the clock instead of sleeping. */
final class TestLimiters {

	private TestLimiters() {
	}

	static RateLimiter onManualClock(ManualTicker ticker, String name, RateLimiterSettings settings) {
		return RateLimiterRegistry.builder()
			.ticker(ticker)
			.sleeper(ticker.sleeper())
			.limiter(name, settings)
			.build()
			.get(name);
	}

}
