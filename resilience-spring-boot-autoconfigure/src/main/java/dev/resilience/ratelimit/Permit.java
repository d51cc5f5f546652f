package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An admitted call. Closing it returns its concurrency permits; closing it again does nothing.
 * <pre>{@code
 * try (Permit permit = limiter.acquire(customerId, 1)) {
 *     return partner.fetch(customerId);
 * }
 * }</pre>
 */
public final class Permit implements AutoCloseable {

	private final List<Reservation> reservations;

	private final Duration waited;

	private final AtomicBoolean closed = new AtomicBoolean();

	Permit(List<Reservation> reservations, Duration waited) {
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
	 * Returns the concurrency permits; idempotent.
	 */
	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			this.reservations.forEach(Reservation::release);
		}
	}

}
