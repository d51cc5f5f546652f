package dev.resilience.poll;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.Durations;

/**
 * The immutable state of a poll between two attempts, the ExWaiter poller record:
 * {@link Poller#initialState()} gives the state before the first attempt, and each
 * {@link Poller#pollOnce(PollState)} returns a new one. A caller that must not block schedules
 * the next attempt itself after {@link #getNextDelay()}.
 * <p>
 * Each state keeps only its own attempt and a link to the previous state, so an attempt costs
 * the same however long the poll has run; {@link #getAttempts()} assembles the list when asked.
 *
 * @param <T> the type of the polled value
 */
public final class PollState<T> {

	private final @Nullable PollState<T> previous;

	private final @Nullable PollAttempt<T> attempt;

	private final long startedAt;

	private final Duration totalDelay;

	private final @Nullable Duration nextDelay;

	private final boolean timedOut;

	private PollState(@Nullable PollState<T> previous, @Nullable PollAttempt<T> attempt, long startedAt,
			Duration totalDelay, @Nullable Duration nextDelay, boolean timedOut) {
		this.previous = previous;
		this.attempt = attempt;
		this.startedAt = startedAt;
		this.totalDelay = totalDelay;
		this.nextDelay = nextDelay;
		this.timedOut = timedOut;
	}

	/** The state before the first attempt, which is made at once. */
	static <T> PollState<T> initial() {
		return new PollState<>(null, null, 0, Duration.ZERO, Duration.ZERO, false);
	}

	/** The state after one more attempt; {@code nextDelay} is {@code null} when the poll is over. */
	PollState<T> next(PollAttempt<T> attempt, long startedAt, @Nullable Duration nextDelay, boolean timedOut) {
		return new PollState<>(this, attempt, startedAt, Durations.saturatedPlus(this.totalDelay, attempt.delayBefore()), nextDelay,
				timedOut);
	}

	/** The wait before the next attempt, {@code null} once the poll is over. */
	@Nullable Duration nextDelay() {
		return this.nextDelay;
	}

	/** The ticker reading at the start of the first attempt when there is a timeout; meaningless otherwise. */
	long startedAt() {
		return this.startedAt;
	}

	/**
	 * Returns whether the last attempt met the condition.
	 * @return whether the poll is fulfilled
	 */
	public boolean isFulfilled() {
		return this.attempt != null && this.attempt.fulfilled();
	}

	/**
	 * Returns whether the poll ended without meeting the condition: its attempts are used up, or
	 * the next one would begin past the timeout.
	 * @return whether the poll is exhausted
	 */
	public boolean isExhausted() {
		return this.nextDelay == null && !isFulfilled();
	}

	/**
	 * Returns whether the poll is over, fulfilled or exhausted: no further attempt may be made.
	 * @return whether the poll is over
	 */
	public boolean isDone() {
		return this.nextDelay == null;
	}

	/**
	 * Returns whether the timeout, rather than the number of attempts, ended the poll.
	 * @return whether the poll is exhausted by its timeout
	 */
	public boolean isTimedOut() {
		return this.timedOut;
	}

	/**
	 * Returns the value of the last attempt: the fulfilling value once {@link #isFulfilled()}.
	 * @return the value, or {@code null} before the first attempt or when the last one threw
	 */
	public @Nullable T getValue() {
		return (this.attempt != null) ? this.attempt.value() : null;
	}

	/**
	 * Returns the wait before the next attempt: zero before the first, empty once the poll is
	 * over.
	 * @return the delay, or empty when no further attempt may be made
	 */
	public Optional<Duration> getNextDelay() {
		return Optional.ofNullable(this.nextDelay);
	}

	/**
	 * Returns every attempt so far, in order.
	 * @return the attempts
	 */
	public List<PollAttempt<T>> getAttempts() {
		List<PollAttempt<T>> attempts = new ArrayList<>();
		for (PollState<T> state = this; state.attempt != null; state = state.previous) {
			attempts.add(state.attempt);
		}
		Collections.reverse(attempts);
		return List.copyOf(attempts);
	}

	/**
	 * Returns the number of attempts so far.
	 * @return the number of the last attempt, 0 before the first
	 */
	public int getAttemptCount() {
		return (this.attempt != null) ? this.attempt.number() : 0;
	}

	/**
	 * Returns the sum of the delays before the attempts so far.
	 * @return the total delay
	 */
	public Duration getTotalDelay() {
		return this.totalDelay;
	}

	/**
	 * Returns what happened so far: every attempt, the total delay and the last value.
	 * @return the history
	 */
	public PollHistory<T> getHistory() {
		return new PollHistory<>(getAttempts(), this.totalDelay, getValue());
	}

	@Override
	public String toString() {
		return "PollState[attempts=" + getAttemptCount() + ", fulfilled=" + isFulfilled() + ", nextDelay="
				+ this.nextDelay + ", totalDelay=" + this.totalDelay + "]";
	}

}
