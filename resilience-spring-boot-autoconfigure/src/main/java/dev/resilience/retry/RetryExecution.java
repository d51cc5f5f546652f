package dev.resilience.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.resilience.internal.DurationText;
import dev.resilience.internal.Durations;
import dev.resilience.observation.ResilienceObservation;
import dev.resilience.observation.ResilienceObservations;

/**
 * One call of a {@link Retry}, as a pure step that any driver runs: the blocking loop of
 * {@link Retry#call(RetryableCall)}, the scheduled one of
 * {@link Retry#callAsync(java.util.function.Supplier, java.util.concurrent.ScheduledExecutorService)}
 * or a reactive operator. The driver says when an attempt starts ({@link #attemptStarting()}),
 * reports its outcome ({@link #returned(Object)} or {@link #failed(Throwable)}) and follows the
 * {@link RetryVerdict}: wait its delay and start the next attempt, or end the call with its value
 * or throwable. Listeners are told of every attempt and of the end, the budget is drawn on and the
 * history is kept here, so every driver decides alike.
 * <p>
 * The step never waits and never looks at the thread: a blocking driver that is interrupted
 * during a delay ends the call with {@link #abandon(String)}, as does a driver whose scheduler
 * refuses the next attempt. Get one from {@link Retry#begin(Predicate, Predicate)}. Not thread
 * safe: one driver at a time, which the hand-over from one attempt to the next orders.
 */
public final class RetryExecution {

	/**
	 * The most a failure carries of what retrying adds to it as suppressed exceptions (the
	 * exhaustions, a broken condition's failures). One exception instance may end any number of
	 * calls (a cached exception thrown by every call), and a suppressed exception stays on it for
	 * good: past this many, later calls add nothing, so the instance does not grow without bound.
	 * Eight leaves room for retries nested several deep.
	 */
	static final int MAX_EXHAUSTIONS_CARRIED = 8;

	private final Retry retry;

	private final Predicate<Throwable> retryIf;

	private final Predicate<@Nullable Object> retryIfResult;

	private final long start;

	private final RetryDelays delays;

	private final List<RetryAttempt> attempts = new ArrayList<>();

	private State state = State.WAITING;

	/** The ticker reading when the running attempt started. */
	private long attemptStart;

	/** The delay waited before the next attempt. */
	private long delay;

	/** The outcome of the last attempt, which an abandoned call ends with. */
	private @Nullable Throwable lastFailure;

	private @Nullable Object lastResult;

	/** The caller's observation, the parent of the retry's: the first retry may be decided on another thread. */
	private final @Nullable Observation parent;

	/** The observation of a retried call, from its first retry verdict until it ends; guarded by this. */
	private volatile @Nullable Observation observation;

	/** Whether the caller cancelled the call; guarded by this. */
	private boolean cancelled;

	RetryExecution(Retry retry, Predicate<Throwable> retryIf, Predicate<@Nullable Object> retryIfResult) {
		this.retry = retry;
		this.retryIf = retryIf;
		this.retryIfResult = retryIfResult;
		this.start = retry.ticker().read();
		this.delays = retry.getPolicy().delays(retry.random());
		this.parent = retry.observations().current();
		RetryBudget budget = retry.budget();
		if (budget != null) {
			budget.recordFirstAttempt();
		}
	}

	/**
	 * Says that an attempt starts now: its duration in the history is measured from here.
	 * @throws IllegalStateException if an attempt is running, or the call is over
	 */
	public void attemptStarting() {
		if (this.state != State.WAITING) {
			throw new IllegalStateException((this.state == State.RUNNING) ? "An attempt is running already"
					: "The call is over: begin a new one");
		}
		this.state = State.RUNNING;
		this.attemptStart = this.retry.ticker().read();
	}

	/**
	 * Reports that the running attempt returned, and decides: end with the result, unless
	 * {@code retryIfResult} asks to retry it; then retry, or end with a
	 * {@link RetriesExhaustedException} holding the result when no retry is left. A
	 * {@code retryIfResult} that throws ends the call with its exception, counted as a failed
	 * attempt.
	 * @param result what the attempt returned
	 * @return the verdict
	 * @throws IllegalStateException if no attempt is running
	 */
	public RetryVerdict returned(@Nullable Object result) {
		return returned(result, false);
	}

	/**
	 * Reports that the running attempt failed, and decides: retry when the policy retries the
	 * failure and {@code retryIf} agrees and a retry is left, else end with the failure (carrying a
	 * suppressed {@link RetriesExhaustedException} when retries were used up or cut short). A
	 * {@code retryIf} that throws ends the call with the failure, the condition's exception added
	 * as suppressed.
	 * @param failure what the attempt threw, or the failure of its stage
	 * @return the verdict
	 * @throws IllegalStateException if no attempt is running
	 */
	public RetryVerdict failed(Throwable failure) {
		return failed(failure, false);
	}

	/**
	 * Ends the call while it waits for its next attempt, such as when the waiting thread is
	 * interrupted: with the last attempt's failure carrying a suppressed
	 * {@link RetriesExhaustedException} whose message ends with
	 * {@code stopped because <reason>}, or, when the last attempt returned a result to retry,
	 * with that exception itself. Listeners are told that the call failed.
	 * @param reason why, such as {@code the thread was interrupted during the delay}
	 * @return the verdict, always {@link RetryVerdict.Kind#THROW}
	 * @throws IllegalStateException unless a retry verdict is being waited out
	 */
	public RetryVerdict abandon(String reason) {
		if (this.state != State.WAITING || this.attempts.isEmpty()) {
			throw new IllegalStateException("Only a call waiting for its next attempt can be abandoned");
		}
		return stop(new Stop(RetryCallOutcome.of(false, this.attempts.size()), reason));
	}

	/**
	 * Ends the call because its caller cancelled it (a driver tells this when the caller's future
	 * or subscription is cancelled): listeners are not told, the call has no outcome, and its
	 * observation, if it was retried, stops with the kind {@code cancelled}. May be called from
	 * any thread, and more than once.
	 */
	public void cancel() {
		Observation observation;
		synchronized (this) {
			this.cancelled = true;
			observation = takeObservation();
		}
		if (observation != null) {
			ResilienceObservations.stop(observation, "cancelled", null);
		}
	}

	/**
	 * Returns whether the call is over: a verdict other than {@link RetryVerdict.Kind#RETRY} was
	 * given.
	 * @return whether the call is over
	 */
	public boolean isOver() {
		return this.state == State.ENDED;
	}

	/**
	 * Returns the attempts so far, in order.
	 * @return the history
	 */
	public List<RetryAttempt> getAttempts() {
		return List.copyOf(this.attempts);
	}

	RetryVerdict returned(@Nullable Object result, boolean interrupted) {
		checkRunning();
		boolean retryResult;
		try {
			retryResult = this.retryIfResult.test(result);
		}
		catch (RuntimeException conditionFailure) {
			// No failure of the call to keep: the condition's is thrown, the call still ends.
			add(RetryAttempt.Outcome.FAILED, conditionFailure);
			return end(RetryCallOutcome.of(false, this.attempts.size()), RetryVerdict.throwing(conditionFailure));
		}
		if (!retryResult) {
			add(RetryAttempt.Outcome.RETURNED, null);
			return end(RetryCallOutcome.of(true, this.attempts.size()), RetryVerdict.returning(result));
		}
		add(RetryAttempt.Outcome.RESULT_RETRIED, null);
		this.lastFailure = null;
		this.lastResult = result;
		return next(null, interrupted);
	}

	RetryVerdict failed(Throwable failure, boolean interrupted) {
		checkRunning();
		add(RetryAttempt.Outcome.FAILED, failure);
		boolean retry;
		try {
			retry = this.retry.getPolicy().retries(failure) && this.retryIf.test(failure);
		}
		catch (RuntimeException conditionFailure) {
			// The call's own failure is what the caller needs; the broken condition rides along.
			carry(failure, conditionFailure);
			retry = false;
		}
		if (!retry) {
			return end(RetryCallOutcome.of(false, this.attempts.size()), RetryVerdict.throwing(failure));
		}
		this.lastFailure = failure;
		this.lastResult = null;
		return next(this.retry.retryAfterOf(failure), interrupted);
	}

	/** Decides on the next retry: its delay, or why there is none. */
	private RetryVerdict next(@Nullable Duration retryAfter, boolean interrupted) {
		RetryCallOutcome failed = RetryCallOutcome.of(false, this.attempts.size());
		if (!this.delays.hasNext()) {
			return stop(new Stop(failed, ""));
		}
		if (interrupted) {
			return stop(new Stop(failed, "the thread was interrupted"));
		}
		long delay = Durations.saturatedNanos(this.delays.next());
		Duration maxDelay = this.retry.getPolicy().backoff().maxDelay();
		if (retryAfter != null) {
			if (retryAfter.compareTo(maxDelay) > 0) {
				return stop(new Stop(failed, "Retry-After of " + DurationText.of(retryAfter) + " is beyond maxDelay "
						+ DurationText.of(maxDelay)));
			}
			delay = Math.max(delay, Durations.saturatedNanos(retryAfter));
		}
		Duration maxDuration = this.retry.getPolicy().maxDuration();
		long elapsed = this.retry.ticker().read() - this.start;
		// Subtracting cannot overflow where adding could: the delay may be saturated.
		if (maxDuration != null && delay > Durations.saturatedNanos(maxDuration) - elapsed) {
			return stop(new Stop(failed, "a delay of " + DurationText.of(Duration.ofNanos(delay))
					+ " would end past maxDuration " + DurationText.of(maxDuration)));
		}
		RetryBudget budget = this.retry.budget();
		if (budget != null && !budget.tryRetry()) {
			return stop(new Stop(RetryCallOutcome.FAILED_BUDGET_EXHAUSTED, "the retry budget is exhausted"));
		}
		this.delay = delay;
		this.state = State.WAITING;
		observeRetry();
		return RetryVerdict.retryAfter(delay);
	}

	/** Ends the call after a retry was due but not made, with the last outcome. */
	private RetryVerdict stop(Stop stop) {
		Throwable failure = this.lastFailure;
		if (failure != null) {
			carry(failure, exhausted(stop.reason, null));
			return end(stop.outcome, RetryVerdict.throwing(failure));
		}
		return end(stop.outcome, RetryVerdict.throwing(exhausted(stop.reason, this.lastResult)));
	}

	/**
	 * Adds what retrying learnt to the failure as a suppressed exception, unless the failure
	 * already carries {@link #MAX_EXHAUSTIONS_CARRIED} of them: the one instance may be thrown by
	 * every call.
	 */
	private static void carry(Throwable failure, Throwable suppressed) {
		int carried = 0;
		for (Throwable earlier : failure.getSuppressed()) {
			if (earlier instanceof RetriesExhaustedException || earlier.getClass() == suppressed.getClass()) {
				carried++;
			}
		}
		if (carried < MAX_EXHAUSTIONS_CARRIED) {
			failure.addSuppressed(suppressed);
		}
	}

	private RetriesExhaustedException exhausted(String reason, @Nullable Object result) {
		int size = this.attempts.size();
		long elapsed = this.retry.ticker().read() - this.start;
		String message = "Tried " + size + ((size == 1) ? " time" : " times") + " over "
				+ DurationText.of(Duration.ofNanos(elapsed)) + (reason.isEmpty() ? "" : "; stopped because " + reason);
		return new RetriesExhaustedException(message, this.attempts, result);
	}

	/**
	 * The first retry verdict starts the call's observation, which then tells of the first attempt;
	 * the later attempts are told as they end.
	 */
	private void observeRetry() {
		ResilienceObservations observations = this.retry.observations();
		if (this.observation != null || observations.isNoop()) {
			return;
		}
		Observation started;
		synchronized (this) {
			if (this.cancelled) {
				return;
			}
			started = observations.start(ResilienceObservation.RETRY, this.retry.getName(), null, this.parent);
			this.observation = started;
		}
		for (RetryAttempt attempt : this.attempts) {
			observeAttempt(started, attempt);
		}
	}

	/** Takes the observation to stop it, so that it is stopped once. */
	private synchronized @Nullable Observation takeObservation() {
		Observation observation = this.observation;
		this.observation = null;
		return observation;
	}

	private static void observeAttempt(Observation observation, RetryAttempt attempt) {
		ResilienceObservations.retryAttempt(observation, attempt.number(), attempt.outcome().name().toLowerCase(Locale.ROOT),
				attempt.delayBefore().toMillis());
	}

	private RetryVerdict end(RetryCallOutcome outcome, RetryVerdict verdict) {
		this.state = State.ENDED;
		// A volatile read first: a call that was not retried takes no lock.
		Observation observation = (this.observation != null) ? takeObservation() : null;
		if (observation != null) {
			ResilienceObservations.stop(observation, outcome.tag(), verdict.failure());
		}
		List<RetryAttempt> history = List.copyOf(this.attempts);
		this.retry.tell((listener) -> listener.onCallEnded(this.retry.getName(), outcome, history));
		return verdict;
	}

	private void checkRunning() {
		if (this.state != State.RUNNING) {
			throw new IllegalStateException("No attempt is running: call attemptStarting() first");
		}
	}

	private void add(RetryAttempt.Outcome outcome, @Nullable Throwable failure) {
		long delayBefore = this.attempts.isEmpty() ? 0 : this.delay;
		RetryAttempt attempt = new RetryAttempt(this.attempts.size() + 1, Duration.ofNanos(delayBefore),
				Duration.ofNanos(this.retry.ticker().read() - this.attemptStart), outcome, failure);
		this.attempts.add(attempt);
		Observation observation = this.observation;
		if (observation != null) {
			observeAttempt(observation, attempt);
		}
		this.retry.tell((listener) -> listener.onAttempt(this.retry.getName(), attempt));
	}

	/** Why retrying stopped, and how the call is counted. */
	private record Stop(RetryCallOutcome outcome, String reason) {
	}

	private enum State {

		/** Before an attempt: the first, or the next after a retry verdict. */
		WAITING,

		/** An attempt started and its outcome is not reported yet. */
		RUNNING,

		/** A verdict ended the call. */
		ENDED

	}

}
