package dev.resilience.retry;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link RetryExecution} decides after an attempt: retry after a delay, end with a value,
 * or end with a throwable.
 *
 * @param kind which of the three
 * @param delayNanos the wait before the next attempt, in nanoseconds, for {@link Kind#RETRY};
 * zero otherwise
 * @param value the call's result for {@link Kind#RETURN}; {@code null} otherwise
 * @param failure what the call ends with for {@link Kind#THROW}: the last failure (with a
 * suppressed {@link RetriesExhaustedException} when retrying was cut short or used up), a
 * {@link RetriesExhaustedException} holding the last result, or the exception of a
 * {@code retryIfResult} condition; {@code null} otherwise
 */
public record RetryVerdict(Kind kind, long delayNanos, @Nullable Object value, @Nullable Throwable failure) {

	/**
	 * Checks that the values fit the kind.
	 * @throws IllegalArgumentException if a value is set that the kind does not use, the delay is
	 * negative, or a {@link Kind#THROW} has no failure
	 */
	public RetryVerdict {
		Objects.requireNonNull(kind, "kind");
		if (delayNanos < 0 || (kind != Kind.RETRY && delayNanos != 0)) {
			throw new IllegalArgumentException("A " + kind + " verdict cannot have a delay of " + delayNanos + "ns");
		}
		if (kind != Kind.RETURN && value != null) {
			throw new IllegalArgumentException("A " + kind + " verdict has no value");
		}
		if ((kind == Kind.THROW) != (failure != null)) {
			throw new IllegalArgumentException("A " + kind + " verdict " + ((failure != null) ? "has no" : "needs a")
					+ " failure");
		}
	}

	/**
	 * Returns the verdict to retry after a delay.
	 * @param delayNanos the delay in nanoseconds, zero or more
	 * @return the verdict
	 */
	public static RetryVerdict retryAfter(long delayNanos) {
		return new RetryVerdict(Kind.RETRY, delayNanos, null, null);
	}

	/**
	 * Returns the verdict to end the call with a value.
	 * @param value the value
	 * @return the verdict
	 */
	public static RetryVerdict returning(@Nullable Object value) {
		return new RetryVerdict(Kind.RETURN, 0, value, null);
	}

	/**
	 * Returns the verdict to end the call with a throwable.
	 * @param failure the throwable
	 * @return the verdict
	 */
	public static RetryVerdict throwing(Throwable failure) {
		return new RetryVerdict(Kind.THROW, 0, null, Objects.requireNonNull(failure, "failure"));
	}

	/**
	 * Returns whether another attempt is to be made, after {@link #delayNanos()}.
	 * @return whether the kind is {@link Kind#RETRY}
	 */
	public boolean isRetry() {
		return this.kind == Kind.RETRY;
	}

	/** The three verdicts. */
	public enum Kind {

		/** Make another attempt after {@link RetryVerdict#delayNanos()}. */
		RETRY,

		/** End the call with {@link RetryVerdict#value()}. */
		RETURN,

		/** End the call with {@link RetryVerdict#failure()}. */
		THROW

	}

}
