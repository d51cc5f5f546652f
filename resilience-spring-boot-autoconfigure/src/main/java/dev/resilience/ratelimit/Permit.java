package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.resilience.internal.Failures;

/**
 * An admitted call. Closing it returns its concurrency permits; closing it again does nothing,
 * whether by {@link #close()} or {@link #closeAsync()}.
 * <pre>{@code
 * try (Permit permit = limiter.acquire(customerId, 1)) {
 *     return partner.fetch(customerId);
 * }
 * }</pre>
 */
public final class Permit implements AutoCloseable {

	/** Returning a permit, without and with a drop: no lambda made per close. */
	private static final Consumer<Reservation> RELEASE = (reservation) -> reservation.release(false);

	private static final Consumer<Reservation> RELEASE_DROPPED = (reservation) -> reservation.release(true);

	private final List<Reservation> reservations;

	private final Duration waited;

	private final AtomicBoolean closed = new AtomicBoolean();

	private volatile boolean dropped;

	/**
	 * Creates the permit of a call admitted by the given reservations. For registry
	 * implementations: callers get their permits from a {@link RateLimiter}.
	 * @param reservations one per limiter that admitted the call, in the order asked
	 * @param waited how long the caller waited for its reserved slot
	 */
	public Permit(List<Reservation> reservations, Duration waited) {
		this.reservations = List.copyOf(reservations);
		this.waited = waited;
	}

	/**
	 * Returns the decision of each limiter that admitted the call, in the order asked.
	 * @return the decisions
	 */
	public List<RateLimitDecision> getDecisions() {
		return this.reservations.stream().map(Reservation::getDecision).toList();
	}

	/**
	 * Returns how long the caller waited for its reserved slot.
	 * @return the wait
	 */
	public Duration getWaited() {
		return this.waited;
	}

	/**
	 * Records that the call ended with a drop: its partner's throttle signal (HTTP 429 or 503, say)
	 * or a timeout. Limiters with {@code max-concurrent: adaptive} (SPEC §11) learn from it when
	 * the permit is closed, and lower their limit; call it before closing. The
	 * {@code @RateLimited} aspect and the HTTP client interceptors call it for you.
	 */
	public void recordDrop() {
		this.dropped = true;
	}

	/**
	 * Returns the concurrency permits; idempotent. Every permit is returned even when returning one
	 * fails: the first failure is then thrown, with the others suppressed in it.
	 */
	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			Failures.forEachThenThrowFirst(this.reservations, this.dropped ? RELEASE_DROPPED : RELEASE);
		}
	}

	/**
	 * Returns the concurrency permits as {@link #close()} does, without holding the calling thread
	 * for a remote store's answer: for callers on an event loop or a scheduler thread. Idempotent
	 * with {@link #close()}: only the first of them returns anything.
	 * @return completes when every permit was returned, possibly on a thread of the store's client
	 */
	public CompletableFuture<Void> closeAsync() {
		if (!this.closed.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		boolean dropped = this.dropped;
		if (this.reservations.size() == 1) {
			return releaseAsync(this.reservations.get(0), dropped);
		}
		CompletableFuture<?>[] released = new CompletableFuture<?>[this.reservations.size()];
		for (int i = 0; i < released.length; i++) {
			released[i] = releaseAsync(this.reservations.get(i), dropped);
		}
		return CompletableFuture.allOf(released);
	}

	private static CompletableFuture<Void> releaseAsync(Reservation reservation, boolean dropped) {
		try {
			return reservation.releaseAsync(dropped);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}
