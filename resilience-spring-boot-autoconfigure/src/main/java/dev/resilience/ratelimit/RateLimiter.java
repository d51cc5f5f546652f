package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import dev.resilience.internal.DurationText;

/**
 * A named rate limiter; obtain one from {@link RateLimiterRegistry#get(String)}. Every method
 * takes a key choosing the bucket: calls with different keys are limited separately, and the
 * empty key is the limiter's single shared bucket.
 * <p>
 * A registry makes its limiters; an implementation of your own (a test double, say) works
 * wherever a limiter is taken, {@link RateLimiterRegistry#acquireAll} included, which asks each
 * limiter only through this interface.
 */
public interface RateLimiter {

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
	 * Admits a call without holding the calling thread, as {@link #acquire(String, int, Duration)}
	 * does on it: the same decisions, listeners told the same way, and a rejection the same
	 * {@link RateLimitExceededException}. The store decides through
	 * {@link dev.resilience.ratelimit.store.RateLimitStore#reserveAsync}; a wait for a reserved
	 * slot or a returned concurrency permit is scheduled on {@code scheduler}, never slept. The
	 * future completes on the calling thread when the call is decided at once, otherwise on
	 * {@code scheduler}. Close the permit (or {@link Permit#closeAsync()} it) when the call ends.
	 * <p>
	 * Cancelling the future at any moment, while the store decides or while the call waits, gives
	 * back everything the call took, exactly once; when the admission wins the race, the permit
	 * is closed. Nothing is thrown: bad arguments complete the future exceptionally too.
	 * @param key the bucket
	 * @param cost the tokens (and window slots) the call consumes
	 * @param maxWait the longest wait; zero rejects at once
	 * @param scheduler runs the waits and the continuations
	 * @return the permit, when admitted; completed exceptionally with
	 * {@link RateLimitExceededException} if the call cannot be admitted within {@code maxWait}, or
	 * with {@link IllegalArgumentException} if the cost is not positive or could never be admitted
	 */
	CompletableFuture<Permit> acquireAsync(String key, int cost, Duration maxWait, ScheduledExecutorService scheduler);

	/**
	 * Admits a call without holding the calling thread, waiting up to the limiter's
	 * {@code max-wait}; see {@link #acquireAsync(String, int, Duration, ScheduledExecutorService)}.
	 * @param key the bucket
	 * @param cost the tokens (and window slots) the call consumes
	 * @param scheduler runs the waits and the continuations
	 * @return the permit, when admitted, or the rejection
	 */
	default CompletableFuture<Permit> acquireAsync(String key, int cost, ScheduledExecutorService scheduler) {
		return acquireAsync(key, cost, getSettings().maxWait(), scheduler);
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
	 * @param maxWait the latest acceptable admission, from now; zero or more
	 * @return the reservation
	 * @throws IllegalArgumentException if the cost is not positive or could never be admitted, or
	 * the wait is negative
	 */
	Reservation reserve(String key, int cost, Duration maxWait);

	/**
	 * Reserves a call as {@link #reserve(String, int, Duration)} does, without holding the calling
	 * thread for a remote store's answer (see
	 * {@link dev.resilience.ratelimit.store.RateLimitStore#reserveAsync}). The future may complete
	 * on a thread of the store's client.
	 * @param key the bucket
	 * @param cost the tokens (and window slots) the call consumes
	 * @param maxWait the latest acceptable admission, from now; zero or more
	 * @return the reservation, when decided; completed exceptionally with
	 * {@link IllegalArgumentException} if the cost is not positive or could never be admitted, or
	 * the wait is negative
	 */
	CompletableFuture<Reservation> reserveAsync(String key, int cost, Duration maxWait);

	/**
	 * After a reservation was rejected for want of a concurrency permit alone
	 * ({@link RateLimitDecision#isConcurrencyLimited()}): waits until a permit of the key may have
	 * been returned, the oldest lease of the key expires or {@code maxWait} has passed, whichever
	 * comes first; then it is worth asking again.
	 * @param key the bucket
	 * @param maxWait the longest wait
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	void awaitPermit(String key, Duration maxWait) throws InterruptedException;

	/**
	 * Waits as {@link #awaitPermit(String, Duration)} does, without holding a thread meanwhile.
	 * Cancelling the future stops the wait. It may complete on the thread that returns a permit.
	 * @param key the bucket
	 * @param maxWait the longest wait
	 * @param scheduler runs the timed completion
	 * @return completes (normally) when it is worth asking again
	 */
	CompletableFuture<Void> awaitPermitAsync(String key, Duration maxWait, ScheduledExecutorService scheduler);

	/**
	 * Pauses one key by hand (SPEC §10), as a throttle signal of the partner would: until the
	 * store's clock reaches now + {@code duration} (never more than {@code pause-on-throttle.max-pause}),
	 * the key's calls are rejected with the rest of the pause as their Retry-After, or wait for it
	 * within their {@code max-wait}, consuming nothing. A pause in force that ends later is kept.
	 * With a shared store (Redis), every instance sees the pause at its next decision. Counted with
	 * the cause {@code manual}.
	 * @param key the bucket
	 * @param duration the pause, positive
	 * @throws IllegalStateException if the limiter's {@code pause-on-throttle} is not enabled
	 * @throws IllegalArgumentException if the duration is not positive
	 */
	default void pause(String key, Duration duration) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException("a pause must be positive but was " + DurationText.of(duration));
		}
		pause(key, Throttle.manual(duration));
	}

	/**
	 * Pauses one key for a partner's throttle signal: for the wait it names, or the limiter's
	 * {@code pause-on-throttle.default-pause} when it names none, never more than
	 * {@code pause-on-throttle.max-pause}. Listeners are told of the pause.
	 * @param key the bucket
	 * @param throttle the signal
	 * @return the pause applied
	 * @throws IllegalStateException if the limiter's {@code pause-on-throttle} is not enabled
	 */
	Duration pause(String key, Throttle throttle);

	/**
	 * Pauses one key as {@link #pause(String, Throttle)} does, without holding the calling thread
	 * for a remote store's answer. A store that cannot be reached counts a store error, and listeners
	 * are told of the pause only once it is stored.
	 * @param key the bucket
	 * @param throttle the signal
	 * @return the pause applied, when stored; completed exceptionally with
	 * {@link IllegalStateException} if the limiter's {@code pause-on-throttle} is not enabled, or
	 * with the store's failure when the pause could not be stored
	 */
	CompletableFuture<Duration> pauseAsync(String key, Throttle throttle);

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
	 * Returns the limit on calls in flight in force: {@code max-concurrent} when it is a number;
	 * with {@code max-concurrent: adaptive} (SPEC §11), the lowest limit among the keys the store
	 * holds, or {@code initial-limit} while it holds none. Reads every key the store holds, so it
	 * is for a gauge or an operator, not for each call. This default tells only a fixed limit.
	 * @return the limit in force, or empty without {@code max-concurrent} or when the store cannot
	 * tell
	 */
	default OptionalInt getConcurrencyLimit() {
		RateLimiterSettings settings = getSettings();
		return (settings.maxConcurrent() > 0 && settings.adaptiveConcurrency() == null)
				? OptionalInt.of(settings.maxConcurrent()) : OptionalInt.empty();
	}

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
