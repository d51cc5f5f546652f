/**
 * Rate limiting: where a limiter's state lives, for those who write a store of their own.
 * <ul>
 * <li>The contract: {@link dev.resilience.ratelimit.store.RateLimitStore} and its
 * {@link dev.resilience.ratelimit.store.RateLimitStoreFactory}. A store answers with the
 * {@link dev.resilience.ratelimit.RateLimitDecision}s and
 * {@link dev.resilience.ratelimit.Reservation}s that callers get.</li>
 * <li>The algorithms a store reuses: {@link dev.resilience.ratelimit.store.TokenBucket} (a pure
 * function over an immutable state), and {@link dev.resilience.ratelimit.store.SlidingWindow} (exact
 * or approximate) and {@link dev.resilience.ratelimit.store.Leases} (concurrency permits), mutable,
 * to be called while holding the key's lock.</li>
 * <li>{@link dev.resilience.ratelimit.store.StoreRateLimiterRegistry}, the registry that runs each
 * limiter on a store: in memory by default, or any store type registered with its builder.</li>
 * </ul>
 * Everything else here is package-private: the in-memory store, the limiter that asks a store, and
 * the acquisition of permits across limiters. The dependency points one way, from this package to
 * {@link dev.resilience.ratelimit}, never back.
 */
@NullMarked
package dev.resilience.ratelimit.store;

import org.jspecify.annotations.NullMarked;
