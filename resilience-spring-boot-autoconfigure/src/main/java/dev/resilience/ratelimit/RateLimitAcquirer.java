package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;

import org.jspecify.annotations.Nullable;

import dev.resilience.Listeners;
import dev.resilience.Sleeper;
import dev.resilience.Ticker;

/**
 * Admits one call through one or more limiters, all or nothing.
 * <p>
 * Each limiter first reserves its own earliest slot. The call proceeds at the latest of them.
 * When that is later than now, only the reservations that set this time are kept; the others
 * are given back and taken again when the call really proceeds, after the wait. Two reasons:
 * every limiter then records the call at the moment it happens (so its windows stay exact), and
 * a wait imposed by one limiter (say, per user) does not reserve a future slot in another (say,
 * global), which would make everybody else queue behind it.
 * <p>
 * When a limiter rejects, everything taken is given back. A rejection that only lacks a
 * concurrency permit waits, within the budget, for a permit to be returned (or a lease to
 * expire) and asks again: unlike tokens and windows, a returned permit cannot be predicted, so
 * it cannot be reserved.
 */
final class RateLimitAcquirer {

	private static final System.Logger logger = System.getLogger(RateLimitAcquirer.class.getName());

	private final Ticker ticker;

	private final Sleeper sleeper;

	private final List<RateLimitListener> listeners;

	RateLimitAcquirer(Ticker ticker, Sleeper sleeper, List<RateLimitListener> listeners) {
		this.ticker = ticker;
		this.sleeper = sleeper;
		this.listeners = List.copyOf(listeners);
	}

	Permit acquire(List<RateLimitRequest> requests) {
		if (requests.isEmpty()) {
			throw new IllegalArgumentException("at least one rate limit request is needed");
		}
		if (requests.size() == 1) {
			// The common case: admitted at once, nothing to coordinate.
			RateLimitRequest request = requests.get(0);
			long start = this.ticker.read();
			Reservation reservation = request.limiter().reserve(request.key(), request.cost(), request.maxWait());
			RateLimitDecision decision = reservation.getDecision();
			if (decision.isPermitted() && decision.getWait().isZero()) {
				publish(request.limiter(), decision);
				return new Permit(List.of(reservation), Duration.ZERO);
			}
			if (decision.isPermitted()) {
				// The slot is this call's: wait for it, one decision in all (a remote store makes one
				// round trip), and give it back if the wait is cut short.
				Reservation[] taken = { reservation };
				try {
					sleep(decision.getWait().toNanos(), taken);
				}
				catch (RuntimeException ex) {
					reservation.cancel();
					throw ex;
				}
				return admit(requests, taken, start, false);
			}
			if (!decision.isConcurrencyLimited()) {
				publish(request.limiter(), decision);
				throw new RateLimitExceededException(decision);
			}
			// Only a concurrency permit is missing: wait for one in the rounds below.
		}
		else {
			checkDistinct(requests);
		}
		long start = this.ticker.read();
		// Waiting for a returned permit blocks on a condition in real time, whatever the ticker
		// says; this bounds it when a test's ticker does not move.
		long realStart = System.nanoTime();
		// Whether the call already waited in an earlier round: for a returned permit, or for a
		// slot after which another limiter had run out.
		boolean waitedBefore = false;
		while (true) {
			Reservation[] taken = new Reservation[requests.size()];
			long[] slots = new long[taken.length];
			try {
				Rejection rejection = reserveOwnSlots(requests, taken, slots, start);
				if (rejection == null) {
					rejection = proceedAtLatestSlot(requests, taken, slots);
				}
				if (rejection == null) {
					return admit(requests, taken, start, waitedBefore);
				}
				cancel(taken);
				RateLimitRequest rejectedBy = requests.get(rejection.index());
				if (rejection.afterWait() && budgetLeft(rejectedBy, start, this.ticker.read()) > 0) {
					// Somebody took this limiter's share while the call waited for another's slot.
					waitedBefore = true;
					continue;
				}
				if (!awaitPermit(rejectedBy, rejection.reservation(), start, realStart)) {
					publish(rejectedBy.limiter(), rejection.reservation().getDecision());
					throw new RateLimitExceededException(rejection.reservation().getDecision());
				}
				waitedBefore = true;
			}
			catch (RuntimeException | Error ex) {
				cancel(taken);
				throw ex;
			}
		}
	}

	/** The same limiter and key twice would wait for its own permit and count one call twice. */
	private static void checkDistinct(List<RateLimitRequest> requests) {
		for (int i = 0; i < requests.size(); i++) {
			for (int j = 0; j < i; j++) {
				RateLimitRequest first = requests.get(j);
				RateLimitRequest second = requests.get(i);
				if (first.limiter() == second.limiter() && first.key().equals(second.key())) {
					throw new IllegalArgumentException("Rate limiter '" + first.limiter().getName() + "' is asked twice for key '"
							+ first.key() + "' (requests " + j + " and " + i + "); a call would count twice and could "
							+ "wait for its own permit: combine them into one request");
				}
			}
		}
	}

	/**
	 * Phase one: every limiter reserves its own earliest slot, within its budget. A slot is read
	 * on this clock just after the decision, so it is never earlier than the store's own.
	 */
	private @Nullable Rejection reserveOwnSlots(List<RateLimitRequest> requests, Reservation[] taken, long[] slots,
			long start) {
		for (int i = 0; i < taken.length; i++) {
			RateLimitRequest request = requests.get(i);
			long budget = Math.max(0, budgetLeft(request, start, this.ticker.read()));
			Reservation reservation = request.limiter()
				.reserve(request.key(), request.cost(), Duration.ofNanos(budget));
			if (!reservation.getDecision().isPermitted()) {
				return new Rejection(i, reservation, false);
			}
			taken[i] = reservation;
			slots[i] = Durations.saturatedAdd(this.ticker.read(), reservation.getDecision().getWait().toNanos());
		}
		return null;
	}

	/**
	 * Phase two: when the latest slot lies ahead, keep the reservations that set it, give back
	 * the others, wait, and take the others' share now that the call proceeds.
	 */
	private @Nullable Rejection proceedAtLatestSlot(List<RateLimitRequest> requests, Reservation[] taken,
			long[] slots) {
		long target = Long.MIN_VALUE;
		for (long slot : slots) {
			target = Math.max(target, slot);
		}
		long now = this.ticker.read();
		if (target <= now) {
			return null;
		}
		for (int i = 0; i < taken.length; i++) {
			if (slots[i] < target) {
				taken[i].cancel();
				taken[i] = null;
			}
		}
		sleep(target - now, taken);
		for (int i = 0; i < taken.length; i++) {
			if (taken[i] == null) {
				RateLimitRequest request = requests.get(i);
				Reservation reservation = request.limiter()
					.reserve(request.key(), request.cost(), Duration.ZERO);
				if (!reservation.getDecision().isPermitted()) {
					return new Rejection(i, reservation, true);
				}
				taken[i] = reservation;
			}
		}
		return null;
	}

	/** Waits for a permit when that is the only thing missing; returns whether to ask again. */
	private boolean awaitPermit(RateLimitRequest request, Reservation rejection, long start, long realStart) {
		long left = Math.min(budgetLeft(request, start, this.ticker.read()),
				budgetLeft(request, realStart, System.nanoTime()));
		if (!rejection.getDecision().isConcurrencyLimited() || left <= 0) {
			return false;
		}
		try {
			((StoreRateLimiter) request.limiter()).awaitPermit(request.key(), left);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted(rejection.getDecision());
		}
	}

	/**
	 * Tells the listeners and returns the permit. When the call waited, for any limiter or any
	 * reason, every limiter reports the whole wait: the call is one, and so is its outcome.
	 */
	private Permit admit(List<RateLimitRequest> requests, Reservation[] taken, long start, boolean waitedBefore) {
		Duration waited = Duration.ofNanos(Math.max(0, this.ticker.read() - start));
		Duration reported = Duration.ZERO;
		for (Reservation reservation : taken) {
			Duration slot = reservation.getDecision().getWait();
			if (waitedBefore || !slot.isZero()) {
				reported = max(reported, max(slot, waited));
			}
		}
		for (int i = 0; i < taken.length; i++) {
			RateLimitDecision decision = taken[i].getDecision();
			publish(requests.get(i).limiter(),
					reported.equals(decision.getWait()) ? decision : decision.waited(reported.toNanos()));
		}
		return new Permit(List.of(taken), waited);
	}

	private static Duration max(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

	private void sleep(long nanos, @Nullable Reservation[] taken) {
		try {
			this.sleeper.sleep(nanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			for (Reservation reservation : taken) {
				if (reservation != null) {
					throw interrupted(reservation.getDecision());
				}
			}
			throw interrupted(null);
		}
	}

	private static void cancel(@Nullable Reservation[] taken) {
		for (int i = 0; i < taken.length; i++) {
			if (taken[i] != null) {
				taken[i].cancel();
				taken[i] = null;
			}
		}
	}

	private static long budgetLeft(RateLimitRequest request, long start, long now) {
		return Durations.toNanos(request.maxWait()) - (now - start);
	}

	private static CancellationException interrupted(@Nullable RateLimitDecision decision) {
		String limiter = (decision != null) ? " '" + decision.getLimiterName() + "'" : "";
		return new CancellationException("Interrupted while waiting for rate limiter" + limiter + "; nothing was consumed");
	}

	void publish(RateLimiter limiter, RateLimitDecision decision) {
		if (this.listeners.isEmpty()) {
			return;
		}
		// A listener must not turn an admitted call into a failure, nor leak its permits.
		Listeners.tell(this.listeners, (listener) -> listener.onDecision(limiter, decision), logger, "Rate limit listener");
	}

	/** The limiter, by index, that rejected the call, and whether it did so after the call waited. */
	private record Rejection(int index, Reservation reservation, boolean afterWait) {
	}

}
