package dev.resilience.poll;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.DurationText;

/**
 * Thrown when a poll ends without its condition ever being met, with a message such as
 * {@code Tried 5 times over 100ms, but condition was never met} and the full
 * {@link #getHistory() history}. The total is the sum of the delays between attempts, written as
 * {@code application.yml} takes a duration, rounded to the millisecond ({@code 100ms},
 * {@code 1530ms}, {@code 2m}). When the timeout ended the poll, the message adds
 * {@code within the timeout of 2s}. When the last attempt threw an exception that was ignored,
 * that exception is the cause; when it was an asynchronous attempt still running at the timeout,
 * and cancelled then, a {@link java.util.concurrent.TimeoutException} saying so.
 */
public class PollExhaustedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final transient PollHistory<?> history;

	private final transient @Nullable Duration timeout;

	/**
	 * Creates the exception.
	 * @param history what happened, with at least one attempt
	 * @param timeout the timeout that ended the poll, or {@code null} when the attempts ran out
	 */
	public PollExhaustedException(PollHistory<?> history, @Nullable Duration timeout) {
		super(message(history, timeout), lastException(history));
		this.history = history;
		this.timeout = timeout;
	}

	private static String message(PollHistory<?> history, @Nullable Duration timeout) {
		int attempts = history.attempts().size();
		return "Tried " + attempts + ((attempts == 1) ? " time" : " times") + " over "
				+ DurationText.of(history.totalDelay()) + ", but condition was never met"
				+ ((timeout != null) ? " within the timeout of " + DurationText.of(timeout) : "");
	}

	private static @Nullable Exception lastException(PollHistory<?> history) {
		int attempts = history.attempts().size();
		return (attempts > 0) ? history.attempts().get(attempts - 1).exception() : null;
	}

	/**
	 * Returns what happened: every attempt, the total delay and the last value.
	 * @return the history
	 */
	public PollHistory<?> getHistory() {
		return this.history;
	}

	/**
	 * Returns the timeout that ended the poll.
	 * @return the timeout, or {@code null} when the attempts ran out
	 */
	public @Nullable Duration getTimeout() {
		return this.timeout;
	}

}
