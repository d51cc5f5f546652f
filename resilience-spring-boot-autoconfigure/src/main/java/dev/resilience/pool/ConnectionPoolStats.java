package dev.resilience.pool;

/**
 * What one pool holds at one moment, for gauges, the endpoint and health.
 *
 * @param maxSize the most connections handed out at once
 * @param active the connections handed out now
 * @param idle the connections ready in the pool
 * @param pending the callers waiting for a connection
 * @param abandoned the calls that timed out but whose work still runs, each holding a connection
 * that is closed when the work ends (outside {@code maxSize})
 */
public record ConnectionPoolStats(int maxSize, int active, int idle, int pending, int abandoned) {
}
