package dev.resilience.autoconfigure.ratelimit;

import dev.resilience.ratelimit.store.RateLimitStoreFactory;

/**
 * A store type added to the {@link dev.resilience.ratelimit.RateLimiterRegistry} the starter
 * builds: the limiters of that type get their stores from its factory. The limiters of
 * {@code resilience.rate-limiters.<name>} choose their type with the {@code store} property, which
 * takes only {@code memory} and {@code redis}. So a registration of type {@code memory} makes the
 * stores of the in-memory limiters in place of the built-in store; the Redis auto-configuration
 * registers {@code redis} as the bean {@code resilienceRedisRateLimitStore}, which a bean of that
 * name replaces; and a registration of any other type is used by no configured limiter (a
 * registry of one's own, made with {@code StoreRateLimiterRegistry.Builder#store}, can use it).
 *
 * @param type the store type, as the {@code store} property names it
 * @param factory creates the store of each limiter of that type
 */
public record RateLimitStoreRegistration(String type, RateLimitStoreFactory factory) {
}
