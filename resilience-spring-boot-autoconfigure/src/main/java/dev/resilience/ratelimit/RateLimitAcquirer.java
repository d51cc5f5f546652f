package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;

/**
 * Admits one call through one or more limiters, all or nothing.
 * <p>
 * Limiters are asked in order, each for a slot no earlier than the latest slot so far. When a
 * limiter can only admit later than the slots already reserved, those are given back and asked
 * again for the later time, so every limiter records the call at the moment it really proceeds.
 * When a limiter rejects, everything taken is given back. When the rejection is only for lack of
 * a concurrency permit and the wait allows, the caller waits for a permit to be returned (or a
 * lease to expire) and asks again: unlike tokens and windows, a returned permit cannot be
 * predicted, so it cannot be reserved.
 */
final class RateLimitAcquirer {

	private final Ticker ticker;

	private final Sleeper sleeper;

	private final List<RateLimitListener> listeners;

	RateLimitAcquirer(Ticker ticker, Sleeper sleeper, List<RateLimitListener> listeners) {
		this.ticker = ticker;
		this.sleeper = sleeper;
		this.listeners = List.copyOf(listeners);
	}

	RateLimitDecision tryAcquire(RateLimiter limiter, String key, int cost) {
		if (limiter.getSettings().maxConcurrent() > 0) {
			throw new IllegalStateException("Rate limiter '" + limiter.getName()
					+ "' has max-concurrent, whose permits must be returned: use acquire(...) and close the Permit");
		}
		RateLimitDecision decision = limiter.reserve(key, cost, Duration.ZERO, Duration.ZERO).getDecision();
		publish(limiter, decision);
		return decision;
	}

	Permit acquire(List<RateLimitRequest> requests) {
		if (requests.isEmpty()) {
			throw new IllegalArgumentException("at least one rate limit request is needed");
		}
		long start = this.ticker.read();
		long target = start;
		while (true) {
			List<Reservation> taken = new ArrayList<>(requests.size());
			List<RateLimiter> takenBy = new ArrayList<>(requests.size());
			RateLimitRequest rejectedBy = null;
			Reservation rejection = null;
			boolean movedLater = false;
			for (RateLimitRequest request : requests) {
				long now = this.ticker.read();
				Reservation reservation = request.limiter()
					.reserve(request.key(), request.cost(), Duration.ofNanos(Math.max(0, target - now)),
							Duration.ofNanos(Math.max(0, budgetLeft(request, start, now))));
				RateLimitDecision decision = reservation.getDecision();
				if (!decision.isPermitted()) {
					rejectedBy = request;
					rejection = reservation;
					break;
				}
				long at = now + decision.getWait().toNanos();
				if (at > target) {
					target = at;
					if (!taken.isEmpty()) {
						reservation.cancel();
						movedLater = true;
						break;
					}
				}
				taken.add(reservation);
				takenBy.add(request.limiter());
			}
			if (rejection == null && !movedLater) {
				return admit(taken, takenBy, start, target);
			}
			taken.forEach(Reservation::cancel);
			if (rejection != null) {
				awaitPermitOrThrow(rejectedBy, rejection, start);
				target = Math.max(target, this.ticker.read());
			}
		}
	}

	private void awaitPermitOrThrow(RateLimitRequest request, Reservation rejection, long start) {
		RateLimitDecision decision = rejection.getDecision();
		long left = budgetLeft(request, start, this.ticker.read());
		boolean permitsTaken = decision.getMaxConcurrent() > 0 && decision.getInFlight() >= decision.getMaxConcurrent();
		if (!permitsTaken || left <= 0) {
			publish(request.limiter(), decision);
			throw new RateLimitExceededException(decision);
		}
		try {
			rejection.awaitPermitReturned(Math.min(left, Math.max(1, decision.getRetryAfter().toNanos())));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted(decision);
		}
	}

	private Permit admit(List<Reservation> taken, List<RateLimiter> takenBy, long start, long target) {
		try {
			this.sleeper.sleep(target - this.ticker.read());
		}
		catch (InterruptedException ex) {
			taken.forEach(Reservation::cancel);
			Thread.currentThread().interrupt();
			throw interrupted(taken.get(0).getDecision());
		}
		for (int i = 0; i < taken.size(); i++) {
			publish(takenBy.get(i), taken.get(i).getDecision());
		}
		return new Permit(taken, Duration.ofNanos(Math.max(0, this.ticker.read() - start)));
	}

	private static long budgetLeft(RateLimitRequest request, long start, long now) {
		return Durations.toNanos(request.maxWait()) - (now - start);
	}

	private static CancellationException interrupted(RateLimitDecision decision) {
		return new CancellationException(
				"Interrupted while waiting for rate limiter '" + decision.getLimiterName() + "'; nothing was consumed");
	}

	private void publish(RateLimiter limiter, RateLimitDecision decision) {
		for (RateLimitListener listener : this.listeners) {
			listener.onDecision(limiter, decision);
		}
	}

}
