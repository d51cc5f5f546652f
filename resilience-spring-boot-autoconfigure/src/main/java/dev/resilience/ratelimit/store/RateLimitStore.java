package dev.resilience.ratelimit.store;

import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreStatus;

/**
 * Keeps the state of one rate limiter's keys and decides atomically over all of its
 * constraints. The starter ships the in-memory store and the Redis store
 * ({@link dev.resilience.ratelimit.redis.RedisRateLimitStore}); other stores plug in through a
 * {@link RateLimitStoreFactory} registered with {@link StoreRateLimiterRegistry.Builder#store}. (The
 * starter's {@code store} property selects only {@code memory} or {@code redis}; see
 * {@code dev.resilience.autoconfigure.ratelimit.RateLimitStoreRegistration}.)
 */
public interface RateLimitStore {

	/** How often the default {@link #awaitPermitAsync} asks again for a returned permit. */
	long PERMIT_RECHECK_MILLIS = 10;

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
	 * @param cost the tokens (and window slots) the call consumes, already checked
	 * @param maxWaitNanos the latest acceptable admission, from now
	 * @return the reservation
	 */
	Reservation reserve(String key, long cost, long maxWaitNanos);

	/**
	 * Decides one call as {@link #reserve(String, long, long)} does, without holding the calling
	 * thread: a remote store composes its client's future instead of waiting for it. The future
	 * completes with the reservation (a store failure is decided by the limiter's
	 * {@link RateLimiterSettings#onStoreFailure()}, as for {@code reserve}); it may complete on a
	 * thread of the store's client, so callers hop elsewhere before running user code. A store
	 * whose decisions never block keeps this default.
	 * @param key the key whose state to use
	 * @param cost the tokens (and window slots) the call consumes, already checked
	 * @param maxWaitNanos the latest acceptable admission, from now
	 * @return the reservation, when decided
	 */
	default CompletableFuture<Reservation> reserveAsync(String key, long cost, long maxWaitNanos) {
		return CompletableFuture.completedFuture(reserve(key, cost, maxWaitNanos));
	}

	/**
	 * Decides one call that is admitted now or not at all, and is never given back: the fast
	 * path of {@link RateLimiter#tryAcquire(String, int)}, for limiters without
	 * {@code max-concurrent}.
	 * @param key the key whose state to use
	 * @param cost the tokens (and window slots) the call consumes, already checked
	 * @return the decision
	 */
	RateLimitDecision tryAcquire(String key, long cost);

	/**
	 * After a rejection for want of a concurrency permit alone: waits until a permit of the key
	 * is returned, the oldest lease of the key expires or the time is up, whichever comes first.
	 * @param key the key
	 * @param nanos the longest wait
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	void awaitPermit(String key, long nanos) throws InterruptedException;

	/**
	 * After a rejection for want of a concurrency permit alone: completes when a permit of the key
	 * may have been returned, the oldest lease of the key expires or {@code nanos} have passed,
	 * whichever comes first, without holding a thread meanwhile. The default asks again after
	 * {@value #PERMIT_RECHECK_MILLIS} ms (or {@code nanos}, if sooner); a store that can be told
	 * of returned permits completes it then. Cancelling the future ends the wait.
	 * @param key the key
	 * @param nanos the longest wait
	 * @param scheduler runs the timed completion
	 * @return completes (normally) when it is worth asking again
	 */
	default CompletableFuture<Void> awaitPermitAsync(String key, long nanos, ScheduledExecutorService scheduler) {
		CompletableFuture<Void> ready = new CompletableFuture<>();
		long delay = Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(PERMIT_RECHECK_MILLIS));
		// A Runnable: a lambda returning complete's boolean would be scheduled as a Callable.
		Runnable recheck = () -> ready.complete(null);
		ScheduledFuture<?> timer = scheduler.schedule(recheck, Math.max(0, delay), TimeUnit.NANOSECONDS);
		ready.whenComplete((done, ex) -> timer.cancel(false));
		return ready;
	}

	/**
	 * Returns whether the store keeps an adaptive limit on calls in flight per key in this JVM
	 * ({@code max-concurrent: adaptive}, SPEC §11), learning from the {@code dropped} flag of
	 * {@link Reservation#release(boolean)}; a limiter with adaptive concurrency needs a store that
	 * does.
	 * @return {@code false} by default
	 */
	default boolean canAdaptConcurrency() {
		return false;
	}

	/**
	 * Returns the limit on calls in flight in force for the store's keys, for a store that keeps
	 * adaptive limits ({@link #canAdaptConcurrency()}) under {@code max-concurrent: adaptive}: the
	 * lowest among the keys it holds, or {@code initial-limit} while it holds none. Meant for a
	 * gauge read now and then, never for a decision: a store may read every key it holds.
	 * @return the lowest limit in force, or empty when the store cannot tell (the default)
	 */
	default OptionalInt concurrencyLimit() {
		return OptionalInt.empty();
	}

	/**
	 * Returns whether the store keeps pauses ({@link #pause}); a limiter with
	 * {@code pause-on-throttle} needs a store that does.
	 * @return {@code false} by default
	 */
	default boolean canPause() {
		return false;
	}

	/**
	 * Pauses one key (SPEC §10) until the store's clock reaches now + {@code nanos}; a pause in
	 * force that ends later is kept ({@link KeyPause#extend}). While the limiter's
	 * {@code pause-on-throttle} is enabled, every decision of a paused key ({@link #reserve},
	 * {@link #reserveAsync}, {@link #tryAcquire}) is rejected with {@link KeyPause#decision},
	 * consuming nothing, and {@link #inspect} shows the pause. A shared store keeps it where every
	 * instance decides, for no longer than it lasts. The default refuses: see {@link #canPause()}.
	 * @param key the key
	 * @param nanos the pause, positive and already capped by {@code max-pause}
	 * @throws UnsupportedOperationException if the store cannot pause keys
	 */
	default void pause(String key, long nanos) {
		throw new UnsupportedOperationException("the " + getType() + " store cannot pause keys");
	}

	/**
	 * Pauses one key as {@link #pause} does, without holding the calling thread for a remote
	 * store's answer. A store failure completes the future exceptionally.
	 * @param key the key
	 * @param nanos the pause, positive and already capped by {@code max-pause}
	 * @return completes when the pause is stored
	 */
	default CompletableFuture<Void> pauseAsync(String key, long nanos) {
		try {
			pause(key, nanos);
			return CompletableFuture.completedFuture(null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Returns the state of one key without consuming anything: permitted when a call of cost 1
	 * would be admitted now.
	 * @param key the key
	 * @return the state
	 */
	RateLimitDecision inspect(String key);

	/**
	 * Forgets one key, so that it starts afresh.
	 * @param key the key
	 */
	void reset(String key);

	/**
	 * Takes new settings of the limiter at run time, of the same shape as the store's (the same
	 * store type, the token bucket present or not alike, as many windows, the same window algorithm,
	 * {@code max-concurrent} zero or not alike: {@link RateLimiterRegistry#updateSettings} checks that). They
	 * apply from the next decision, and every key keeps its state: a bucket its tokens (no more than
	 * a new capacity), a window its entries, a key its permits. A store that cannot keeps this
	 * default, and the limiter refuses the change.
	 * @param settings the new settings
	 * @return whether the store took them
	 */
	default boolean updateSettings(RateLimiterSettings settings) {
		return false;
	}

	/**
	 * Returns how many keys the store holds, for stores that can tell cheaply.
	 * @return the number of keys held, or empty when the store cannot tell
	 */
	default OptionalLong keyCount() {
		return OptionalLong.empty();
	}

	/**
	 * Checks whether the store is reachable; a remote store asks its server, within its decision
	 * timeout.
	 * @return the store's status
	 */
	default StoreStatus checkStatus() {
		return StoreStatus.LOCAL;
	}

	/**
	 * Returns how many store operations failed so far (each one decided by the limiter's
	 * {@link RateLimiterSettings#onStoreFailure()}).
	 * @return the number of failures
	 */
	default long errorCount() {
		return 0;
	}

}
