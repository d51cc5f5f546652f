package dev.resilience.poll;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.DurationText;

/**
 * One attempt of a poll, as its {@link PollHistory} records it.
 *
 * @param <T> the type of the polled value
 * @param number the attempt's number, 1 for the first
 * @param delayBefore the wait before it, as planned; zero for the first
 * @param fulfilled whether its value met the condition
 * @param value the value it returned, or {@code null} when it threw
 * @param exception the exception it threw and that was ignored
 * ({@link PollSettings#ignoreExceptions()}), or the {@link java.util.concurrent.TimeoutException}
 * of an asynchronous attempt still running at the timeout; {@code null} when it returned a value
 */
public record PollAttempt<T>(int number, Duration delayBefore, boolean fulfilled, @Nullable T value,
		@Nullable Exception exception) {

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException if {@code number} is less than 1 or the delay is negative
	 * @throws NullPointerException if {@code delayBefore} is {@code null}
	 */
	public PollAttempt {
		Objects.requireNonNull(delayBefore, "delayBefore");
		if (number < 1) {
			throw new IllegalArgumentException("The first attempt is number 1, but was " + number);
		}
		if (delayBefore.isNegative()) {
			throw new IllegalArgumentException(
					"delayBefore must not be negative, but was " + DurationText.of(delayBefore));
		}
	}

}
