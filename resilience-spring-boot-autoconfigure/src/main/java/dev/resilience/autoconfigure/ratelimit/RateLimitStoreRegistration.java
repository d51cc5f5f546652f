package dev.resilience.autoconfigure.ratelimit;

import dev.resilience.ratelimit.RateLimitStoreFactory;

/**
 * A store type for {@code resilience.rate-limiters.<name>.store}: a bean of this type makes the
 * type available to the {@link dev.resilience.ratelimit.RateLimiterRegistry} the starter builds.
 *
 * @param type the store type, as the {@code store} property names it
 * @param factory creates the store of each limiter of that type
 */
public record RateLimitStoreRegistration(String type, RateLimitStoreFactory factory) {
}
