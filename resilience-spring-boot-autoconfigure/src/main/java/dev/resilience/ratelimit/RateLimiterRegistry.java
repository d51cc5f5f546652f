package dev.resilience.ratelimit;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The application's rate limiters, by name. The starter registers one as a bean, built from
 * {@code resilience.rate-limiters.*}; build one yourself with
 * {@link dev.resilience.ratelimit.store.StoreRateLimiterRegistry#builder()}.
 */
public interface RateLimiterRegistry {

	/**
	 * Returns the limiter with the given name.
	 * @param name the limiter's name
	 * @return the limiter
	 * @throws IllegalArgumentException if there is none, naming the limiters there are
	 */
	RateLimiter get(String name);

	/**
	 * Replaces a limiter's settings at run time, atomically: a call decides with the old settings
	 * or the new ones, never a mix. They apply from the next decision, and every key keeps its
	 * state (a bucket its tokens, no more than a new capacity; a window its entries; a key its
	 * permits). The change may not alter what a key's state is made of: the store, whether there
	 * is a token bucket, how many windows and their algorithm, whether there is
	 * {@code max-concurrent}.
	 * @param name the limiter's name
	 * @param settings its new settings
	 * @throws IllegalArgumentException if there is no such limiter, or the settings differ in
	 * shape, naming the setting
	 * @throws IllegalStateException if the limiter's store cannot change its settings
	 */
	void updateSettings(String name, RateLimiterSettings settings);

	/**
	 * Returns the names of all limiters, in configuration order.
	 * @return the names
	 */
	Set<String> getNames();

	/**
	 * Returns all limiters, in configuration order.
	 * @return the limiters
	 */
	Collection<RateLimiter> getAll();

	/**
	 * Admits one call through several limiters, all or nothing: a call rejected by one limiter
	 * leaves the others as if it had not happened. Waits for a reserved slot when the requests
	 * allow it.
	 * @param requests one per limiter, checked in order
	 * @return the permit, to close when the call ends
	 * @throws RateLimitExceededException if a limiter rejects the call
	 */
	Permit acquireAll(List<RateLimitRequest> requests);

	/**
	 * Admits one call through several limiters, all or nothing, as {@link #acquireAll(List)} does,
	 * without holding the calling thread: each limiter decides without blocking, and waits are
	 * scheduled on {@code scheduler}, never slept. The future completes on the calling thread when
	 * the call is decided at once, otherwise on {@code scheduler}. Cancelling it at any moment
	 * gives back everything the call took, exactly once; when the admission wins the race, the
	 * permit is closed.
	 * @param requests one per limiter, checked in order
	 * @param scheduler runs the waits and the continuations
	 * @return the permit, to close when the call ends; completed exceptionally with
	 * {@link RateLimitExceededException} if a limiter rejects the call, or with
	 * {@link IllegalArgumentException} for bad requests (nothing is thrown)
	 */
	CompletableFuture<Permit> acquireAllAsync(List<RateLimitRequest> requests,
			ScheduledExecutorService scheduler);

}
