/**
 * The Redis store of rate limiters: every decision is one Lua script run by {@code EVALSHA} on the
 * Redis server's clock, so several application instances share one limit exactly.
 */
@NullMarked
package dev.resilience.ratelimit.redis;

import org.jspecify.annotations.NullMarked;
