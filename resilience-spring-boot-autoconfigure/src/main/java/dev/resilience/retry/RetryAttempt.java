package dev.resilience.retry;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.DurationText;

/**
 * One attempt of a retried call, as {@link RetriesExhaustedException#getAttempts()} lists it and
 * {@link RetryListener}s are told of it.
 *
 * @param number the attempt's number, 1 for the first call
 * @param delayBefore the wait before it, zero for the first
 * @param duration how long the attempt ran
 * @param outcome how it ended
 * @param failure what it threw, or {@code null} when it returned
 */
public record RetryAttempt(int number, Duration delayBefore, Duration duration, Outcome outcome,
		@Nullable Throwable failure) {

	/**
	 * Checks the values.
	 * @throws NullPointerException if a duration or the outcome is {@code null}
	 */
	public RetryAttempt {
		Objects.requireNonNull(delayBefore, "delayBefore");
		Objects.requireNonNull(duration, "duration");
		Objects.requireNonNull(outcome, "outcome");
	}

	/**
	 * Describes the attempt: {@code #2 after 200ms, ran 3ms: failed with java.io.IOException: boom}.
	 * @return the description
	 */
	@Override
	public String toString() {
		String how = switch (this.outcome) {
			case RETURNED -> "returned";
			case RESULT_RETRIED -> "returned a result to retry";
			case FAILED -> "failed with " + this.failure;
		};
		return "#" + this.number + " after " + DurationText.of(this.delayBefore) + ", ran "
				+ DurationText.of(this.duration) + ": " + how;
	}

	/** How an attempt ended. */
	public enum Outcome {

		/** It returned a result that ends the call. */
		RETURNED,

		/** It returned a result that {@code retryIfResult} asked to retry. */
		RESULT_RETRIED,

		/** It threw. */
		FAILED

	}

}
