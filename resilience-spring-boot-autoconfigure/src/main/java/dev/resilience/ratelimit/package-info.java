/**
 * Rate limiting: the {@link dev.resilience.ratelimit.RateLimited @RateLimited} annotation, the
 * {@link dev.resilience.ratelimit.RateLimiterRegistry} of named limiters, the in-memory store and
 * the {@link dev.resilience.ratelimit.RateLimitStore} interface other stores implement, and the
 * algorithms: the token bucket as a pure function over an immutable state
 * ({@link dev.resilience.ratelimit.TokenBucket}), exact and approximate sliding windows and
 * concurrency permits.
 */
@NullMarked
package dev.resilience.ratelimit;

import org.jspecify.annotations.NullMarked;
