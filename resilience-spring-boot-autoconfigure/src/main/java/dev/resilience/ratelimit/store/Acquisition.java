package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;
import dev.resilience.internal.Durations;
import dev.resilience.internal.Failures;
import dev.resilience.observation.ResilienceObservation;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.Reservation;

/**
 * One call's way through its limiters, all or nothing: the policy of {@link RateLimitAcquirer},
 * written once as steps. It decides what to do next and never does it itself: a driver reads
 * {@link #action()}, performs it (a decision of the store, a wait for a slot, a wait for a
 * returned permit) and reports back through {@link #reserved(Reservation)} or {@link #waited()},
 * until the action is {@link Action#ADMIT} or {@link Action#REJECT}. The blocking driver sleeps
 * and asks the store on the caller's thread; the asynchronous one schedules and composes futures.
 * <p>
 * The rounds: each limiter first reserves its own earliest slot. The call proceeds at the latest
 * of them; when that is later than now, only the reservations that set this time are kept, the
 * others are given back and taken again once the call really proceeds, after the wait. A rejection
 * gives back everything taken; one that lacks only a concurrency permit waits, within the budget,
 * for a permit to be returned (or a lease to expire) and starts a new round. A single request is
 * decided once with its whole budget and proceeds after the slot it got.
 * <p>
 * Not thread safe: one driver step at a time, handed from thread to thread with a happens-before
 * edge.
 */
final class Acquisition {

	/** What the driver does next. */
	enum Action {

		/** Ask {@link #request()}'s limiter for a reservation within {@link #reserveWait()}. */
		RESERVE,

		/** Wait {@link #nanos()} for a reserved slot, then call {@link #waited()}. */
		WAIT,

		/**
		 * Wait up to {@link #nanos()} for a permit of {@link #request()}'s key to be returned, then
		 * call {@link #waited()}.
		 */
		AWAIT_PERMIT,

		/** Admitted: call {@link #admit()}. */
		ADMIT,

		/** Rejected: call {@link #reject()}. */
		REJECT

	}

	/** Where the call stands; decides what a reported outcome means. */
	private enum Phase {

		/** The first decision of a single request, with its whole budget. */
		SINGLE,

		/** A single request waits for its reserved slot. */
		SINGLE_WAIT,

		/** Phase one of a round: each limiter reserves its own slot. */
		RESERVING,

		/** Phase two: the call waits for the latest slot. */
		SLOT_WAIT,

		/** After the wait: the limiters whose reservations were given back take them again. */
		RETAKING,

		/** A rejection lacking only a concurrency permit waits for one. */
		PERMIT_WAIT,

		/** A rejection of a paused key waits for the pause to end, then asks again. */
		PAUSE_WAIT,

		/** Admitted, rejected or abandoned. */
		DONE

	}

	private final RateLimitAcquirer acquirer;

	private final Ticker ticker;

	/** Bounds the waits for a returned permit, which may pass in real time while the ticker stands. */
	private final Ticker permitWaitClock;

	private final List<RateLimitRequest> requests;

	/** Gives back one reservation: blocking or not, as the driver's thread allows. */
	private final Consumer<Reservation> giveBack;

	private Phase phase;

	private Action action = Action.RESERVE;

	/** The request of {@link Action#RESERVE} and {@link Action#AWAIT_PERMIT}. */
	private int index;

	/** The budget of {@link Action#RESERVE}. */
	private Duration reserveWait = Duration.ZERO;

	/** How long {@link Action#WAIT} and {@link Action#AWAIT_PERMIT} wait. */
	private long nanos;

	private long start;

	private long permitWaitStart;

	/**
	 * Whether the call already waited in an earlier round: for a returned permit, or for a slot
	 * after which another limiter had run out.
	 */
	private boolean waitedBefore;

	/** Whether a single request was admitted by its first decision, without waiting. */
	private boolean admittedAtOnce;

	/** The reservation each limiter holds for the call, by request index. */
	private final @Nullable Reservation[] taken;

	/** When each limiter's slot is due, on the ticker, by request index. */
	private final long[] slots;

	/** The rejection waited on or reported. */
	private @Nullable Rejection rejection;

	/** The decision named when a wait is interrupted. */
	private @Nullable RateLimitDecision waitingFor;

	/** The caller's observation, the parent of the wait's: the wait may begin on another thread. */
	private final @Nullable Observation parent;

	/** The observation of the call's wait, from its first wait until the call is decided. */
	private @Nullable Observation waitObservation;

	/**
	 * Starts a call.
	 * @param acquirer tells the listeners
	 * @param ticker the clock of slots and budgets
	 * @param permitWaitClock bounds the waits for a returned permit
	 * @param requests one per limiter, checked in order
	 * @param giveBack gives back one reservation
	 * @throws IllegalArgumentException if there is no request or one limiter and key are asked twice
	 */
	Acquisition(RateLimitAcquirer acquirer, Ticker ticker, Ticker permitWaitClock, List<RateLimitRequest> requests,
			Consumer<Reservation> giveBack) {
		if (requests.isEmpty()) {
			throw new IllegalArgumentException("at least one rate limit request is needed");
		}
		this.acquirer = acquirer;
		this.ticker = ticker;
		this.permitWaitClock = permitWaitClock;
		this.requests = requests;
		this.giveBack = giveBack;
		this.taken = new Reservation[requests.size()];
		this.slots = new long[requests.size()];
		this.parent = acquirer.observations().current();
		if (requests.size() == 1) {
			// The common case: one decision with the whole budget, nothing to coordinate.
			this.phase = Phase.SINGLE;
			this.start = ticker.read();
			reserve(0, requests.get(0).maxWait());
		}
		else {
			checkDistinct(requests);
			beginRounds();
		}
	}

	/**
	 * Moves the start of a single request back to when its driver asked for its first decision,
	 * before this acquisition was made: budgets and waits count from then.
	 * @param start when the call started, on the ticker
	 */
	void startedAt(long start) {
		if (this.phase != Phase.SINGLE || this.action != Action.RESERVE) {
			throw new IllegalStateException("cannot move the start while " + this.action + " in " + this.phase);
		}
		this.start = start;
	}

	/** The same limiter and key twice would wait for its own permit and count one call twice. */
	private static void checkDistinct(List<RateLimitRequest> requests) {
		for (int i = 0; i < requests.size(); i++) {
			for (int j = 0; j < i; j++) {
				RateLimitRequest first = requests.get(j);
				RateLimitRequest second = requests.get(i);
				if (first.limiter() == second.limiter() && first.key().equals(second.key())) {
					// The requests' numbers point at them; the key stays out of the message.
					throw new IllegalArgumentException("Rate limiter '" + first.limiter().getName() + "' is asked twice "
							+ "for the same key (requests " + j + " and " + i + "); a call would count twice and could "
							+ "wait for its own permit: combine them into one request");
				}
			}
		}
	}

	/**
	 * Returns what the driver does next.
	 * @return the action
	 */
	Action action() {
		return this.action;
	}

	/**
	 * Returns the request of {@link Action#RESERVE} or {@link Action#AWAIT_PERMIT}.
	 * @return the request
	 */
	RateLimitRequest request() {
		return this.requests.get(this.index);
	}

	/**
	 * Returns the budget of {@link Action#RESERVE}: the latest acceptable slot, from now.
	 * @return the budget
	 */
	Duration reserveWait() {
		return this.reserveWait;
	}

	/**
	 * Returns how long {@link Action#WAIT} or {@link Action#AWAIT_PERMIT} waits at most.
	 * @return the wait in nanoseconds, positive
	 */
	long nanos() {
		return this.nanos;
	}

	/**
	 * Reports the reservation that {@link Action#RESERVE} got; the acquisition owns it from now on.
	 * @param reservation the reservation
	 */
	void reserved(Reservation reservation) {
		RateLimitDecision decision = reservation.getDecision();
		switch (this.phase) {
			case SINGLE -> reservedSingle(reservation, decision);
			case RESERVING -> {
				if (!decision.isPermitted()) {
					rejected(new Rejection(this.index, reservation, false));
					return;
				}
				this.taken[this.index] = reservation;
				// Read on this clock just after the decision, so the slot is never earlier than the store's.
				this.slots[this.index] = Durations.saturatedAdd(this.ticker.read(), decision.getWait().toNanos());
				if (this.index + 1 < this.taken.length) {
					reserve(this.index + 1, Duration.ofNanos(Math.max(0, budgetLeft(this.index + 1))));
				}
				else {
					proceedAtLatestSlot();
				}
			}
			case RETAKING -> {
				if (!decision.isPermitted()) {
					// Somebody took this limiter's share while the call waited for another's slot.
					rejected(new Rejection(this.index, reservation, true));
					return;
				}
				this.taken[this.index] = reservation;
				retakeFrom(this.index + 1);
			}
			default -> throw new IllegalStateException("no decision expected while " + this.phase);
		}
	}

	private void reservedSingle(Reservation reservation, RateLimitDecision decision) {
		if (decision.isPermitted()) {
			this.taken[0] = reservation;
			if (decision.getWait().isZero()) {
				this.admittedAtOnce = true;
				this.action = Action.ADMIT;
			}
			else {
				// The slot is this call's: wait for it, one decision in all (a remote store makes
				// one round trip), and give it back if the wait is cut short.
				this.phase = Phase.SINGLE_WAIT;
				this.waitingFor = decision;
				await(Action.WAIT, decision.getWait().toNanos(), 0);
			}
		}
		else if (decision.isPaused() && decision.getRetryAfter().toNanos() <= budgetLeft(0)) {
			this.rejection = new Rejection(0, reservation, false);
			awaitPause(0, decision);
		}
		else if (!decision.isConcurrencyLimited()) {
			this.rejection = new Rejection(0, reservation, false);
			this.phase = Phase.DONE;
			this.action = Action.REJECT;
		}
		else {
			// Only a concurrency permit is missing: wait for one in the rounds.
			beginRounds();
		}
	}

	/**
	 * Reports the end of {@link Action#WAIT} or {@link Action#AWAIT_PERMIT}.
	 */
	void waited() {
		switch (this.phase) {
			case SINGLE_WAIT -> this.action = Action.ADMIT;
			case SLOT_WAIT -> {
				this.phase = Phase.RETAKING;
				retakeFrom(0);
			}
			case PERMIT_WAIT, PAUSE_WAIT -> {
				this.waitedBefore = true;
				newRound();
			}
			default -> throw new IllegalStateException("no wait expected while " + this.phase);
		}
	}

	/**
	 * Tells the listeners and returns the permit, which owns the reservations from now on. When
	 * the call waited, for any limiter or any reason, every limiter reports the whole wait: the
	 * call is one, and so is its outcome.
	 * @return the permit
	 */
	Permit admit() {
		expect(Action.ADMIT);
		this.phase = Phase.DONE;
		if (this.admittedAtOnce) {
			// The common case: one limiter, no wait, its decision as it is.
			Reservation reservation = this.taken[0];
			this.taken[0] = null;
			this.acquirer.publish(this.requests.get(0).limiter(), reservation.getDecision());
			return new Permit(List.of(reservation), Duration.ZERO);
		}
		Duration waited = Duration.ofNanos(Math.max(0, this.ticker.read() - this.start));
		Duration reported = Duration.ZERO;
		for (Reservation reservation : this.taken) {
			Duration slot = reservation.getDecision().getWait();
			if (this.waitedBefore || !slot.isZero()) {
				reported = max(reported, max(slot, waited));
			}
		}
		for (int i = 0; i < this.taken.length; i++) {
			RateLimitDecision decision = this.taken[i].getDecision();
			this.acquirer.publish(this.requests.get(i).limiter(),
					reported.equals(decision.getWait()) ? decision : decision.waited(reported.toNanos()));
		}
		Permit permit = new Permit(List.of(this.taken), waited);
		Arrays.fill(this.taken, null);
		stopObservation("waited", null);
		return permit;
	}

	/**
	 * Tells the listeners of the rejection and returns it; nothing is held any more.
	 * @return the exception to throw or complete with
	 */
	RateLimitExceededException reject() {
		expect(Action.REJECT);
		Rejection rejection = this.rejection;
		RateLimitDecision decision = rejection.reservation().getDecision();
		this.acquirer.publish(this.requests.get(rejection.index()).limiter(), decision);
		RateLimitExceededException exception = this.acquirer.rejection(decision);
		stopObservation("rejected", exception);
		return exception;
	}

	/**
	 * Gives back every reservation held, each once; the acquisition is over. Safe to call again.
	 */
	void abandon() {
		this.phase = Phase.DONE;
		stopObservation("cancelled", null);
		giveBackAll();
	}

	/**
	 * Returns the exception for a wait cut short, naming the limiter waited for.
	 * @return the exception
	 */
	CancellationException interrupted() {
		RateLimitDecision decision = this.waitingFor;
		String limiter = (decision != null) ? " '" + decision.getLimiterName() + "'" : "";
		return new CancellationException("Interrupted while waiting for rate limiter" + limiter + "; nothing was consumed");
	}

	private void beginRounds() {
		this.start = this.ticker.read();
		this.permitWaitStart = this.permitWaitClock.read();
		newRound();
	}

	private void newRound() {
		this.phase = Phase.RESERVING;
		reserve(0, Duration.ofNanos(Math.max(0, budgetLeft(0))));
	}

	/**
	 * Phase two: when the latest slot lies ahead, keep the reservations that set it, give back
	 * the others, wait, and take the others' share once the call proceeds.
	 */
	private void proceedAtLatestSlot() {
		long target = Long.MIN_VALUE;
		for (long slot : this.slots) {
			target = Math.max(target, slot);
		}
		long now = this.ticker.read();
		if (target <= now) {
			this.action = Action.ADMIT;
			return;
		}
		for (int i = 0; i < this.taken.length; i++) {
			if (this.slots[i] < target) {
				Reservation reservation = this.taken[i];
				this.taken[i] = null;
				this.giveBack.accept(reservation);
			}
		}
		this.waitingFor = null;
		int waitingIndex = 0;
		for (int i = 0; i < this.taken.length; i++) {
			if (this.taken[i] != null) {
				this.waitingFor = this.taken[i].getDecision();
				waitingIndex = i;
				break;
			}
		}
		this.phase = Phase.SLOT_WAIT;
		await(Action.WAIT, target - now, waitingIndex);
	}

	private void retakeFrom(int from) {
		for (int i = from; i < this.taken.length; i++) {
			if (this.taken[i] == null) {
				reserve(i, Duration.ZERO);
				return;
			}
		}
		this.action = Action.ADMIT;
	}

	/**
	 * A limiter rejected: give back everything, then ask again, wait for a permit when that is the
	 * only thing missing, or reject.
	 */
	private void rejected(Rejection rejection) {
		giveBackAll();
		RateLimitRequest rejectedBy = this.requests.get(rejection.index());
		if (rejection.afterWait() && budgetLeft(rejection.index()) > 0) {
			this.waitedBefore = true;
			newRound();
			return;
		}
		this.rejection = rejection;
		RateLimitDecision decision = rejection.reservation().getDecision();
		if (decision.isPaused() && decision.getRetryAfter().toNanos() <= budgetLeft(rejection.index())) {
			awaitPause(rejection.index(), decision);
			return;
		}
		long left = Math.min(budgetLeft(rejection.index()),
				budgetLeft(rejectedBy, this.permitWaitStart, this.permitWaitClock.read()));
		if (!decision.isConcurrencyLimited() || left <= 0) {
			this.phase = Phase.DONE;
			this.action = Action.REJECT;
			return;
		}
		this.phase = Phase.PERMIT_WAIT;
		this.index = rejection.index();
		this.waitingFor = rejection.reservation().getDecision();
		await(Action.AWAIT_PERMIT, left, rejection.index());
	}

	/**
	 * A paused key whose pause (and this caller's share of the resumptions' spread) ends within the
	 * budget: wait for it, holding nothing, then decide again as usual (SPEC §10).
	 */
	private void awaitPause(int index, RateLimitDecision decision) {
		this.phase = Phase.PAUSE_WAIT;
		this.waitingFor = decision;
		await(Action.WAIT, Math.max(1, decision.getRetryAfter().toNanos()), index);
	}

	private void reserve(int index, Duration budget) {
		this.index = index;
		this.reserveWait = budget;
		this.action = Action.RESERVE;
	}

	/**
	 * Waits: the first wait of the call starts its observation, named after the limiter that
	 * makes it wait, and it lasts until the call is decided.
	 */
	private void await(Action action, long nanos, int waitingIndex) {
		this.nanos = nanos;
		this.action = action;
		ResilienceObservations observations = this.acquirer.observations();
		if (this.waitObservation == null && !observations.isNoop()) {
			RateLimiter limiter = this.requests.get(waitingIndex).limiter();
			this.waitObservation = observations.start(ResilienceObservation.RATE_LIMITER_WAIT, limiter.getName(),
					limiter.getStoreType(), this.parent);
		}
	}

	/** Ends the wait's observation, if the call waited. */
	private void stopObservation(String outcome, @Nullable Throwable failure) {
		Observation observation = this.waitObservation;
		if (observation != null) {
			this.waitObservation = null;
			ResilienceObservations.stop(observation, outcome, failure);
		}
	}

	/** Gives back every reservation held; when one fails, still the others, then throws the first failure. */
	private void giveBackAll() {
		RuntimeException failure = null;
		for (int i = 0; i < this.taken.length; i++) {
			Reservation reservation = this.taken[i];
			if (reservation != null) {
				this.taken[i] = null;
				try {
					this.giveBack.accept(reservation);
				}
				catch (RuntimeException ex) {
					failure = Failures.firstOf(failure, ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	private void expect(Action expected) {
		if (this.action != expected || (expected == Action.ADMIT && this.phase == Phase.DONE)) {
			throw new IllegalStateException("cannot " + expected + " while " + this.action + " in " + this.phase);
		}
	}

	private long budgetLeft(int index) {
		return budgetLeft(this.requests.get(index), this.start, this.ticker.read());
	}

	private static long budgetLeft(RateLimitRequest request, long start, long now) {
		return Durations.saturatedNanos(request.maxWait()) - (now - start);
	}

	private static Duration max(Duration a, Duration b) {
		return (a.compareTo(b) >= 0) ? a : b;
	}

	/** The limiter, by index, that rejected the call, and whether it did so after the call waited. */
	private record Rejection(int index, Reservation reservation, boolean afterWait) {
	}

}
