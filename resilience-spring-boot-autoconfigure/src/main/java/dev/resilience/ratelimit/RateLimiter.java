package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * A named rate limiter; obtain one from {@link RateLimiterRegistry#get(String)}. Every method
 * takes a key choosing the bucket: calls with different keys are limited separately, and the
 * empty key is the limiter's single shared bucket.
 */
public sealed interface RateLimiter permits StoreRateLimiter {

	/**
	 * Returns the limiter's name.
	 * @return the name
	 */
	String getName();

	/**
	 * Returns the limiter's settings.
	 * @return the settings
	 */
	RateLimiterSettings getSettings();

	/**
	 * Returns the name of the store that keeps the limiter's state.
	 * @return the store type
	 */
	String getStoreType();

	/**
	 * Admits a call now if every constraint admits it, consuming nothing otherwise; never blocks.
	 * @param key the bucket
	 * @param cost the tokens (and window slots) the call consumes
	 * @return the decision
	 * @throws IllegalArgumentException if the cost is not positive or could never be admitted
	 * @throws IllegalStateException if the limiter has {@code max-concurrent}: its permits must
	 * be returned, so use {@link #acquire(String, int, Duration)}
	 */
	RateLimitDecision tryAcquire(String key, int cost);

	/**
	 * Admits a call, waiting up to {@code maxWait} for a reserved slot. Close the returned
	 * permit when the call ends to return its concurrency permit.
	 * @param key the bucket
	 * @param cost the tokens (and window slots) the call consumes
	 * @param maxWait the longest wait; zero rejects at once
	 * @return the permit
	 * @throws RateLimitExceededException if the call cannot be admitted within {@code maxWait}
	 * @throws IllegalArgumentException if the cost is not positive or could never be admitted
	 */
	Permit acquire(String key, int cost, Duration maxWait);

	/**
	 * Admits a call, waiting up to the limiter's {@code max-wait}.
	 * @param key the bucket
	 * @param cost the tokens (and window slots) the call consumes
	 * @return the permit
	 * @throws RateLimitExceededException if the call cannot be admitted in time
	 */
	default Permit acquire(String key, int cost) {
		return acquire(key, cost, getSettings().maxWait());
	}

	/**
	 * Reserves a call without blocking, for callers that must not block, such as a message
	 * handler: when the decision is permitted, the slot is held, and the caller proceeds after the
	 * decision's {@link RateLimitDecision#getWait() wait} (re-queueing its message with that
	 * delay, say), then {@link Reservation#release() releases} the reservation when the call
	 * ends; a caller that gives up {@link Reservation#cancel() cancels} it, which gives back
	 * everything. Listeners are not told of reservations. Like Guava's {@code reserve}.
	 * @param key the bucket
	 * @param cost the tokens (and window slots) the call consumes
	 * @param maxWait the latest acceptable admission, from now
	 * @return the reservation
	 */
	Reservation reserve(String key, int cost, Duration maxWait);

	/**
	 * Returns the state of one key, consuming nothing.
	 * @param key the bucket
	 * @return the state as a decision
	 */
	RateLimitDecision inspect(String key);

	/**
	 * Forgets one key: its next call finds full buckets and empty windows.
	 * @param key the bucket
	 */
	void reset(String key);

	/**
	 * Returns how many keys the limiter's store holds now, for the stores that can tell
	 * cheaply (the in-memory store can).
	 * @return the number of keys held, or empty when the store cannot tell
	 */
	OptionalLong getKeyCount();

	/**
	 * Checks whether the limiter's store is reachable; a remote store asks its server.
	 * @return the store's status
	 */
	StoreStatus checkStoreStatus();

	/**
	 * Returns how many operations of the limiter's store failed so far.
	 * @return the number of failures
	 */
	long getStoreErrors();

}
