package dev.resilience.poll;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What happened during a poll: every attempt in order, the total of the delays between them, and
 * the value of the last attempt.
 *
 * @param <T> the type of the polled value
 * @param attempts every attempt, in order
 * @param totalDelay the sum of the planned delays before the attempts (the time spent
 * computing the values is not included, as in ExWaiter's {@code total_delay})
 * @param lastValue the value of the last attempt: the fulfilling value when the condition was
 * met, {@code null} when there was no attempt or the last one threw
 */
public record PollHistory<T>(List<PollAttempt<T>> attempts, Duration totalDelay, @Nullable T lastValue) {

	/**
	 * Copies the attempts.
	 * @throws NullPointerException if {@code attempts} or {@code totalDelay} is {@code null}
	 */
	public PollHistory {
		attempts = List.copyOf(attempts);
		Objects.requireNonNull(totalDelay, "totalDelay");
	}

	/**
	 * Returns whether the last attempt met the condition.
	 * @return whether the poll was fulfilled
	 */
	public boolean fulfilled() {
		return !this.attempts.isEmpty() && this.attempts.get(this.attempts.size() - 1).fulfilled();
	}

}
