/**
 * Rate limiting: the {@link dev.resilience.ratelimit.RateLimited @RateLimited} annotation, the
 * {@link dev.resilience.ratelimit.RateLimiterRegistry} of named limiters, and the algorithms
 * (token bucket, sliding windows, concurrency permits) as pure functions over immutable state.
 */
@NullMarked
package dev.resilience.ratelimit;

import org.jspecify.annotations.NullMarked;
