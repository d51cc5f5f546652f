/**
 * Rate limiting: what callers use. The {@link dev.resilience.ratelimit.RateLimited @RateLimited}
 * annotation, the {@link dev.resilience.ratelimit.RateLimiterRegistry} of named
 * {@link dev.resilience.ratelimit.RateLimiter}s, their
 * {@link dev.resilience.ratelimit.RateLimitDecision}s, {@link dev.resilience.ratelimit.Permit}s,
 * {@link dev.resilience.ratelimit.Reservation}s and
 * {@link dev.resilience.ratelimit.RateLimitExceededException}, the settings
 * ({@link dev.resilience.ratelimit.RateLimiterSettings} and its parts) and the listeners.
 * <p>
 * This package depends on no other rate-limit package. Where a limiter's state lives, the contract
 * a store of one's own implements and the algorithms it reuses are in
 * {@link dev.resilience.ratelimit.store}, which also builds registries without Spring
 * ({@link dev.resilience.ratelimit.store.StoreRateLimiterRegistry#builder()}).
 */
@NullMarked
package dev.resilience.ratelimit;

import org.jspecify.annotations.NullMarked;
