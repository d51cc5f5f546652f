package dev.resilience.ratelimit.store;

import dev.resilience.Ticker;
import dev.resilience.ratelimit.RateLimiterSettings;

/**
 * Creates the store of one rate limiter; registered with
 * {@link StoreRateLimiterRegistry.Builder#store(String, RateLimitStoreFactory)} under the name that
 * {@link RateLimiterSettings#store()} selects.
 */
@FunctionalInterface
public interface RateLimitStoreFactory {

	/**
	 * Creates a store.
	 * @param limiterName the limiter's name
	 * @param settings the limiter's settings
	 * @param ticker the clock of the application
	 * @return a new store
	 */
	RateLimitStore create(String limiterName, RateLimiterSettings settings, Ticker ticker);

}
