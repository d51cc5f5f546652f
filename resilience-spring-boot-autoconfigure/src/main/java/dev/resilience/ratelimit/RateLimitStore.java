package dev.resilience.ratelimit;

import java.util.OptionalLong;

/**
 * Keeps the state of one rate limiter's keys and decides atomically over all of its
 * constraints. The starter ships the in-memory store; other stores plug in through a
 * {@link RateLimitStoreFactory}.
 */
public interface RateLimitStore {

	/**
	 * Returns the store's type, such as {@value RateLimiterSettings#MEMORY_STORE}; used as the
	 * {@code store} tag of the meters.
	 * @return the store type
	 */
	String getType();

	/**
	 * Decides one call atomically: admits it at the earliest time at which every constraint
	 * admits it, provided that is no more than {@code maxWaitNanos} away; otherwise rejects it
	 * and changes nothing.
	 * @param key the key whose state to use
	 * @param cost the tokens (and window slots) the call consumes
	 * @param maxWaitNanos the latest acceptable admission, from now
	 * @return the reservation
	 * @throws IllegalArgumentException if the cost is not positive or could never be admitted
	 */
	Reservation reserve(String key, long cost, long maxWaitNanos);

	/**
	 * Returns the state of one key without consuming anything.
	 * @param key the key
	 * @return the state, as a permitted decision
	 */
	RateLimitDecision inspect(String key);

	/**
	 * Forgets one key, so that it starts afresh.
	 * @param key the key
	 */
	void reset(String key);

	/**
	 * Returns how many keys the store holds, for stores that can tell cheaply.
	 * @return the number of keys held, or empty when the store cannot tell
	 */
	default OptionalLong keyCount() {
		return OptionalLong.empty();
	}

}
