package dev.resilience.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * Whether a limiter's store is reachable, as the {@code resilience} health contributor reports it.
 *
 * @param reachable whether the store answered
 * @param errors the failed store operations so far
 * @param error why the store is unreachable, or {@code null} when it is reachable
 */
public record StoreStatus(boolean reachable, long errors, @Nullable String error) {

	/** A store that keeps its state in this JVM: always reachable, never failing. */
	public static final StoreStatus LOCAL = new StoreStatus(true, 0, null);

}
