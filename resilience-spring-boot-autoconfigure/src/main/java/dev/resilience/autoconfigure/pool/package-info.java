/**
 * Spring wiring of pools with a deadline: a {@code ConnectionPool} bean per
 * {@code resilience.pools.<name>}, the advisor that applies {@code @WithConnection}, the context
 * carried to the worker threads, and the pool meters.
 */
@NullMarked
package dev.resilience.autoconfigure.pool;

import org.jspecify.annotations.NullMarked;
