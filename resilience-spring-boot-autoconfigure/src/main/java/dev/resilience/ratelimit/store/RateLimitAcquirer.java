package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.internal.Listeners;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.Throttle;

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
 * <p>
 * That policy is written once, as the steps of an {@link Acquisition}; this class drives them on
 * the caller's thread ({@link #acquire}: the store's blocking decisions, the {@link Sleeper},
 * {@link RateLimiter#awaitPermit}) or without holding a thread ({@link #acquireAsync}, see
 * {@link AsyncAcquisition}).
 */
final class RateLimitAcquirer {

	private static final System.Logger logger = System.getLogger(RateLimitAcquirer.class.getName());

	private final Ticker ticker;

	/**
	 * Bounds waits for a returned permit: a store may wait for one in real time, on a condition or
	 * a scheduler, whatever the ticker says, and a test's ticker may not move meanwhile.
	 */
	private final Ticker permitWaitClock;

	private final Sleeper sleeper;

	private final List<RateLimitListener> listeners;

	/** The listeners told of a call admitted without a wait, so that the others cost it nothing. */
	private final List<RateLimitListener> admissionListeners;

	private final ResilienceObservations observations;

	/** Whether rejections record a stack trace: off by default, a flood's rejections would pay for it. */
	private final boolean stackTraces;

	/** Whether a rejection's message names its key: off by default, keys stay in the process. */
	private final boolean includeKeys;

	RateLimitAcquirer(Ticker ticker, Ticker permitWaitClock, Sleeper sleeper, List<RateLimitListener> listeners,
			ResilienceObservations observations, boolean stackTraces, boolean includeKeys) {
		this.observations = observations;
		this.ticker = ticker;
		this.permitWaitClock = permitWaitClock;
		this.sleeper = sleeper;
		this.listeners = List.copyOf(listeners);
		this.admissionListeners = this.listeners.stream().filter(RateLimitListener::admissionsWithoutWait).toList();
		this.stackTraces = stackTraces;
		this.includeKeys = includeKeys;
	}

	/**
	 * Admits a call, waiting on the caller's thread.
	 * @param requests one per limiter, checked in order
	 * @return the permit
	 * @throws RateLimitExceededException if a limiter rejects the call
	 * @throws java.util.concurrent.CancellationException if the thread is interrupted while waiting
	 */
	Permit acquire(List<RateLimitRequest> requests) {
		Acquisition acquisition = new Acquisition(this, this.ticker, this.permitWaitClock, requests, Reservation::cancel);
		try {
			while (true) {
				switch (acquisition.action()) {
					case RESERVE -> {
						RateLimitRequest request = acquisition.request();
						acquisition.reserved(
								request.limiter().reserve(request.key(), request.cost(), acquisition.reserveWait()));
					}
					case WAIT -> {
						sleep(acquisition);
						acquisition.waited();
					}
					case AWAIT_PERMIT -> {
						awaitPermit(acquisition);
						acquisition.waited();
					}
					case ADMIT -> {
						return acquisition.admit();
					}
					case REJECT -> throw acquisition.reject();
				}
			}
		}
		catch (RuntimeException | Error ex) {
			acquisition.abandon();
			throw ex;
		}
	}

	/**
	 * Admits a call without holding a thread: decisions through
	 * {@link RateLimiter#reserveAsync}, waits scheduled.
	 * @param requests one per limiter, checked in order
	 * @param scheduler runs the waits and the continuations
	 * @return the permit, when admitted; never thrown, every outcome completes it
	 */
	CompletableFuture<Permit> acquireAsync(List<RateLimitRequest> requests, ScheduledExecutorService scheduler) {
		if (requests.size() == 1 && scheduler != null) {
			return acquireOneAsync(requests, scheduler);
		}
		return AsyncAcquisition.start(this, this.ticker, this.permitWaitClock, requests, scheduler);
	}

	/**
	 * One limiter, the common case: its decision is asked here, on the caller's thread. A call it
	 * admits at once (an in-memory store with room) is over: no driver, no future chained, its
	 * decision published as it is, as {@link Acquisition#admit()} does for such a call. Any other
	 * outcome (a slot to wait for, a rejection, a decision still on its way from a remote store)
	 * is driven by an {@link AsyncAcquisition} that takes this decision over.
	 */
	private CompletableFuture<Permit> acquireOneAsync(List<RateLimitRequest> requests,
			ScheduledExecutorService scheduler) {
		RateLimitRequest request = requests.get(0);
		long start = this.ticker.read();
		CompletableFuture<Reservation> decided;
		try {
			decided = request.limiter().reserveAsync(request.key(), request.cost(), request.maxWait());
		}
		catch (RuntimeException | Error ex) {
			return CompletableFuture.failedFuture(ex);
		}
		Reservation reservation = (decided.isDone() && !decided.isCompletedExceptionally()) ? decided.getNow(null)
				: null;
		if (reservation != null) {
			RateLimitDecision decision = reservation.getDecision();
			if (decision.isPermitted() && decision.getWait().isZero()) {
				publish(request.limiter(), decision);
				return CompletableFuture.completedFuture(new Permit(List.of(reservation), Duration.ZERO));
			}
		}
		return AsyncAcquisition.takeOver(this, this.ticker, this.permitWaitClock, requests, scheduler, start, decided);
	}

	private void sleep(Acquisition acquisition) {
		try {
			this.sleeper.sleep(acquisition.nanos());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw acquisition.interrupted();
		}
	}

	private static void awaitPermit(Acquisition acquisition) {
		RateLimitRequest request = acquisition.request();
		try {
			request.limiter().awaitPermit(request.key(), Duration.ofNanos(acquisition.nanos()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw acquisition.interrupted();
		}
	}

	/** Where the waits are observed. */
	ResilienceObservations observations() {
		return this.observations;
	}

	/**
	 * The exception for a rejecting decision, with a stack trace and the key in its message only
	 * when the registry asks for them.
	 */
	RateLimitExceededException rejection(RateLimitDecision decision) {
		return new RateLimitExceededException(decision, this.stackTraces, this.includeKeys);
	}

	void publishPause(RateLimiter limiter, String key, Duration pause, Throttle.Cause cause) {
		Listeners.tell(this.listeners, (listener) -> listener.onPause(limiter, key, pause, cause), logger,
				"Rate limit listener");
	}

	void publish(RateLimiter limiter, RateLimitDecision decision) {
		if (this.listeners.isEmpty()) {
			return; // nobody to tell (no metrics, no events): without building the wait as a Duration
		}
		List<RateLimitListener> listeners = (decision.isPermitted() && decision.getWait().isZero())
				? this.admissionListeners : this.listeners;
		if (listeners.isEmpty()) {
			return;
		}
		// A listener must not turn an admitted call into a failure, nor leak its permits.
		Listeners.tell(listeners, (listener) -> listener.onDecision(limiter, decision), logger, "Rate limit listener");
	}

}
