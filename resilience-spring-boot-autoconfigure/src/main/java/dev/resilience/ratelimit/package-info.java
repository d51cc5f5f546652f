/**
 * Rate limiting. Two audiences share this package, and everything that serves neither is
 * package-private.
 * <ul>
 * <li><b>Callers:</b> the {@link dev.resilience.ratelimit.RateLimited @RateLimited} annotation,
 * the {@link dev.resilience.ratelimit.RateLimiterRegistry} of named
 * {@link dev.resilience.ratelimit.RateLimiter}s, their
 * {@link dev.resilience.ratelimit.RateLimitDecision}s, {@link dev.resilience.ratelimit.Permit}s and
 * {@link dev.resilience.ratelimit.RateLimitExceededException}, the settings
 * ({@link dev.resilience.ratelimit.RateLimiterSettings} and its parts) and the listeners.</li>
 * <li><b>Store authors</b> (the extension point): {@link dev.resilience.ratelimit.RateLimitStore}
 * and its {@link dev.resilience.ratelimit.RateLimitStoreFactory},
 * {@link dev.resilience.ratelimit.Reservation}, {@link dev.resilience.ratelimit.StoreStatus}, and
 * the pure algorithms a store reuses: {@link dev.resilience.ratelimit.TokenBucket} (a function over
 * an immutable state), {@link dev.resilience.ratelimit.SlidingWindow} (exact or approximate) and
 * {@link dev.resilience.ratelimit.Leases} (concurrency permits).</li>
 * </ul>
 * The store contract stays beside the caller API because each needs the other: a store answers
 * with the {@code RateLimitDecision} callers get, and the registry's builder takes store
 * factories. A subpackage for either would make the two packages depend on each other.
 */
@NullMarked
package dev.resilience.ratelimit;

import org.jspecify.annotations.NullMarked;
