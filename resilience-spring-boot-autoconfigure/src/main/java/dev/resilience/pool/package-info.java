/**
 * Pools with a deadline: the {@link dev.resilience.pool.WithConnection @WithConnection}
 * annotation, {@link dev.resilience.pool.ConnectionPool} (built on Apache Commons Pool 2) and the
 * {@link dev.resilience.pool.ConnectionFactory} a user supplies. One deadline covers waiting for
 * a connection and running the work; the work runs on another thread so that the caller is back
 * at the deadline even when the work hangs, and a connection whose work timed out is never handed
 * out again. Asynchronous calls ({@link dev.resilience.pool.ConnectionPool#withConnectionAsync},
 * {@link dev.resilience.pool.ConnectionPool#checkoutAsync}) wait for a connection without a thread
 * and hold it until their stage completes or their lease ends, within the same one deadline.
 */
@NullMarked
package dev.resilience.pool;

import org.jspecify.annotations.NullMarked;
