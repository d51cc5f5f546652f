package dev.resilience.retry;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.DoubleSupplier;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.Causes;
import dev.resilience.internal.DurationText;

/**
 * What a retry does, without state: how many retries, the delays between attempts, the budget
 * no retry may overrun, which failures are retried and the retry budget of the policy. Build one
 * with {@link #builder()}, which checks the settings together in {@link Builder#build()}.
 *
 * @param maxRetries the retries after the first attempt; zero or more
 * @param backoff the delays before jitter
 * @param jitter how the delays are randomised
 * @param maxDuration the time all attempts and delays may take: no retry starts whose delay
 * would end past it; {@code null} for no limit
 * @param retryOn the failures retried, matched on the exception and its causes
 * @param noRetryOn the failures never retried, matched on the exception and its causes; they
 * win over {@code retryOn}
 * @param budget the retry budget, or {@code null} for none
 */
public record RetryPolicy(int maxRetries, BackoffPolicy backoff, Jitter jitter, @Nullable Duration maxDuration,
		List<Class<? extends Throwable>> retryOn, List<Class<? extends Throwable>> noRetryOn,
		@Nullable RetryBudgetSettings budget) {

	/** The retries when none are set. */
	public static final int DEFAULT_MAX_RETRIES = 3;

	/** The first delay when none is set. */
	public static final Duration DEFAULT_DELAY = Duration.ofMillis(100);

	/** The growth factor of exponential backoff when none is set. */
	public static final double DEFAULT_MULTIPLIER = 2.0;

	/** The cap on one delay when none is set. */
	public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(10);

	/**
	 * Use {@link #builder()}; this checks the values as {@link Builder#build()} does.
	 * @throws IllegalArgumentException naming the setting that is out of range
	 */
	public RetryPolicy {
		Objects.requireNonNull(backoff, "backoff");
		Objects.requireNonNull(jitter, "jitter");
		if (maxRetries < 0) {
			throw new IllegalArgumentException("max-retries must not be negative, but was " + maxRetries);
		}
		if (maxDuration != null && (maxDuration.isNegative() || maxDuration.isZero())) {
			throw new IllegalArgumentException(
					"max-duration must be positive, but was " + DurationText.of(maxDuration));
		}
		if (retryOn.isEmpty()) {
			throw new IllegalArgumentException("retry-on must name at least one exception type");
		}
		for (Class<? extends Throwable> type : retryOn) {
			// never retried (see retries): naming one would be silently ignored
			if (Error.class.isAssignableFrom(type) || InterruptedException.class.isAssignableFrom(type)) {
				throw new IllegalArgumentException("retry-on names " + type.getName()
						+ ", which is never retried: Errors and InterruptedException end a call at once");
			}
		}
		retryOn = List.copyOf(retryOn);
		noRetryOn = List.copyOf(noRetryOn);
	}

	/**
	 * Returns a builder with the defaults: 3 retries, exponential backoff from 100ms doubling up
	 * to 10s, full jitter, no maximum duration, every {@link Exception} retried, no budget.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns a builder holding this policy's settings, to change some of them.
	 * @return the builder
	 */
	public Builder toBuilder() {
		Builder builder = new Builder();
		builder.maxRetries = this.maxRetries;
		builder.backoffPolicy(this.backoff);
		builder.jitter = this.jitter;
		builder.maxDuration = this.maxDuration;
		builder.retryOn = this.retryOn;
		builder.noRetryOn = this.noRetryOn;
		builder.budget = this.budget;
		return builder;
	}

	/**
	 * Returns the delays of one call's retries.
	 * @param random random numbers in {@code [0, 1)} for the jitter
	 * @return the delays, {@code maxRetries} of them
	 */
	RetryDelays delays(DoubleSupplier random) {
		return new RetryDelays(this.backoff, this.jitter, this.maxRetries, random);
	}

	/**
	 * Returns whether the failure is of a kind this policy retries: never when it or a cause is an
	 * {@link Error} or an {@link InterruptedException} (wrapped, it is still fatal or a request to
	 * stop), never when it or a cause is one of {@code noRetryOn}, else when it or a cause is one
	 * of {@code retryOn}.
	 * @param failure what an attempt threw
	 * @return whether to retry it, conditions and limits permitting
	 */
	public boolean retries(Throwable failure) {
		boolean retryable = false;
		for (Throwable cause : Causes.chain(failure)) {
			if (cause instanceof Error || cause instanceof InterruptedException || isAny(cause, this.noRetryOn)) {
				return false;
			}
			retryable = retryable || isAny(cause, this.retryOn);
		}
		return retryable;
	}

	private static boolean isAny(Throwable failure, List<Class<? extends Throwable>> types) {
		for (Class<? extends Throwable> type : types) {
			if (type.isInstance(failure)) {
				return true;
			}
		}
		return false;
	}

	/** Collects the settings of a {@link RetryPolicy}; {@link #build()} checks them together. */
	public static final class Builder {

		private int maxRetries = DEFAULT_MAX_RETRIES;

		private Backoff backoff = Backoff.EXPONENTIAL;

		private Duration delay = DEFAULT_DELAY;

		private double multiplier = DEFAULT_MULTIPLIER;

		private Duration maxDelay = DEFAULT_MAX_DELAY;

		private Jitter jitter = Jitter.FULL;

		private @Nullable Duration maxDuration;

		private List<Class<? extends Throwable>> retryOn = List.of(Exception.class);

		private List<Class<? extends Throwable>> noRetryOn = List.of();

		private @Nullable RetryBudgetSettings budget;

		private Builder() {
		}

		/**
		 * Sets the retries after the first attempt.
		 * @param maxRetries zero or more
		 * @return this builder
		 */
		public Builder maxRetries(int maxRetries) {
			this.maxRetries = maxRetries;
			return this;
		}

		/**
		 * Sets the four backoff settings at once: how the delay grows, the first delay, the
		 * multiplier and the cap on one delay.
		 * @param backoffPolicy the backoff, such as one shared with polls
		 * @return this builder
		 */
		public Builder backoffPolicy(BackoffPolicy backoffPolicy) {
			this.backoff = backoffPolicy.backoff();
			this.delay = backoffPolicy.delay();
			this.multiplier = backoffPolicy.multiplier();
			this.maxDelay = backoffPolicy.maxDelay();
			return this;
		}

		/**
		 * Sets how the delay grows.
		 * @param backoff the backoff
		 * @return this builder
		 */
		public Builder backoff(Backoff backoff) {
			this.backoff = Objects.requireNonNull(backoff, "backoff");
			return this;
		}

		/**
		 * Sets the first delay.
		 * @param delay zero or more
		 * @return this builder
		 */
		public Builder delay(Duration delay) {
			this.delay = Objects.requireNonNull(delay, "delay");
			return this;
		}

		/**
		 * Sets the growth factor of {@link Backoff#EXPONENTIAL}.
		 * @param multiplier at least 1
		 * @return this builder
		 */
		public Builder multiplier(double multiplier) {
			this.multiplier = multiplier;
			return this;
		}

		/**
		 * Sets the cap on one delay, Retry-After included.
		 * @param maxDelay at least the first delay
		 * @return this builder
		 */
		public Builder maxDelay(Duration maxDelay) {
			this.maxDelay = Objects.requireNonNull(maxDelay, "maxDelay");
			return this;
		}

		/**
		 * Sets how delays are randomised.
		 * @param jitter the jitter
		 * @return this builder
		 */
		public Builder jitter(Jitter jitter) {
			this.jitter = Objects.requireNonNull(jitter, "jitter");
			return this;
		}

		/**
		 * Sets the time all attempts and delays of a call may take.
		 * @param maxDuration positive, or {@code null} for no limit
		 * @return this builder
		 */
		public Builder maxDuration(@Nullable Duration maxDuration) {
			this.maxDuration = maxDuration;
			return this;
		}

		/**
		 * Sets the failures retried, matched on the exception and its causes.
		 * @param retryOn at least one type
		 * @return this builder
		 */
		public Builder retryOn(List<Class<? extends Throwable>> retryOn) {
			this.retryOn = List.copyOf(retryOn);
			return this;
		}

		/**
		 * Sets the failures never retried, matched on the exception and its causes.
		 * @param noRetryOn the types, possibly none
		 * @return this builder
		 */
		public Builder noRetryOn(List<Class<? extends Throwable>> noRetryOn) {
			this.noRetryOn = List.copyOf(noRetryOn);
			return this;
		}

		/**
		 * Sets the retry budget.
		 * @param budget the budget, or {@code null} for none
		 * @return this builder
		 */
		public Builder budget(@Nullable RetryBudgetSettings budget) {
			this.budget = budget;
			return this;
		}

		/**
		 * Checks the settings together and builds the policy.
		 * @return the policy
		 * @throws IllegalArgumentException naming the setting that is out of range
		 */
		public RetryPolicy build() {
			return new RetryPolicy(this.maxRetries, new BackoffPolicy(this.backoff, this.delay, this.multiplier,
					this.maxDelay), this.jitter, this.maxDuration, this.retryOn, this.noRetryOn, this.budget);
		}

	}

}
