package dev.resilience.poll;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.DurationText;
import dev.resilience.retry.Backoff;
import dev.resilience.retry.BackoffPolicy;

/**
 * The immutable settings of a poll: the delays between attempts, how many attempts are made,
 * the overall deadline and whether an exception counts as an unmet attempt. Build one with
 * {@link #builder()}; its defaults are ExWaiter's: 5 attempts, the first at once, then 10, 20,
 * 30 and 40 ms apart.
 *
 * @param backoffPolicy the delays between attempts
 * @param maxAttempts attempts in all, at least 1, or {@link #UNLIMITED} (then a timeout is
 * required)
 * @param timeout the overall deadline, counted from the start of the first attempt, or
 * {@code null} for none: an attempt that would begin past it is not made
 * @param ignoreExceptions whether an exception of the polled call counts as an unmet attempt
 * instead of ending the poll
 */
public record PollSettings(BackoffPolicy backoffPolicy, int maxAttempts, @Nullable Duration timeout,
		boolean ignoreExceptions) {

	/** The value of {@link #maxAttempts()} that sets no limit on the attempts. */
	public static final int UNLIMITED = -1;

	/** The default number of attempts. */
	public static final int DEFAULT_MAX_ATTEMPTS = 5;

	/** The default first delay. */
	public static final Duration DEFAULT_DELAY = Duration.ofMillis(10);

	/** The default growth of the delays. */
	public static final Backoff DEFAULT_BACKOFF = Backoff.LINEAR;

	/** The default multiplier of {@link Backoff#EXPONENTIAL}. */
	public static final double DEFAULT_MULTIPLIER = 2.0;

	/** The default cap on one delay. */
	public static final Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(10);

	/**
	 * Checks the settings; prefer {@link #builder()}.
	 * @param backoffPolicy see the record component
	 * @param maxAttempts see the record component
	 * @param timeout see the record component
	 * @param ignoreExceptions see the record component
	 * @throws IllegalArgumentException naming the setting that is out of range, or when attempts
	 * are unlimited without a timeout
	 * @throws NullPointerException if {@code backoffPolicy} is {@code null}
	 */
	public PollSettings {
		Objects.requireNonNull(backoffPolicy, "backoffPolicy");
		if (maxAttempts < 1 && maxAttempts != UNLIMITED) {
			throw new IllegalArgumentException(
					"max-attempts must be at least 1, or -1 for unlimited, but was " + maxAttempts);
		}
		if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
			throw new IllegalArgumentException("timeout must be positive, but was " + DurationText.of(timeout));
		}
		if (maxAttempts == UNLIMITED && timeout == null) {
			throw new IllegalArgumentException("unlimited max-attempts (-1) needs a timeout, or the poll could never end");
		}
	}

	/**
	 * Returns the settings of {@link #builder()} left as they are.
	 * @return the default settings
	 */
	public static PollSettings defaults() {
		return Builder.DEFAULTS;
	}

	/**
	 * Returns a builder with the defaults.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns whether the attempts are unlimited, so that only the timeout ends the poll.
	 * @return whether {@link #maxAttempts()} is {@link #UNLIMITED}
	 */
	public boolean unlimitedAttempts() {
		return this.maxAttempts == UNLIMITED;
	}

	/**
	 * Returns a builder holding these settings, to change some of them.
	 * @return a new builder
	 */
	public Builder toBuilder() {
		return new Builder().backoffPolicy(this.backoffPolicy)
			.maxAttempts(this.maxAttempts)
			.timeout(this.timeout)
			.ignoreExceptions(this.ignoreExceptions);
	}

	/**
	 * Builds {@link PollSettings}; every value is checked together in {@link #build()}.
	 */
	public static final class Builder {

		private static final PollSettings DEFAULTS = new Builder().build();

		private Duration delay = DEFAULT_DELAY;

		private Backoff backoff = DEFAULT_BACKOFF;

		private double multiplier = DEFAULT_MULTIPLIER;

		private Duration maxDelay = DEFAULT_MAX_DELAY;

		private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

		private @Nullable Duration timeout;

		private boolean ignoreExceptions;

		private Builder() {
		}

		/**
		 * Sets the four backoff settings at once: how the delay grows, the first delay, the
		 * multiplier and the cap on one delay.
		 * @param backoffPolicy the backoff, such as one shared with retries
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
		 * Sets the first delay, 10 ms by default.
		 * @param delay the wait after the first attempt, zero or more
		 * @return this builder
		 */
		public Builder delay(Duration delay) {
			this.delay = Objects.requireNonNull(delay, "delay");
			return this;
		}

		/**
		 * Sets how the delay grows, {@link Backoff#LINEAR} by default.
		 * @param backoff the growth
		 * @return this builder
		 */
		public Builder backoff(Backoff backoff) {
			this.backoff = Objects.requireNonNull(backoff, "backoff");
			return this;
		}

		/**
		 * Sets the growth factor of {@link Backoff#EXPONENTIAL}, 2 by default.
		 * @param multiplier the factor, finite and at least 1
		 * @return this builder
		 */
		public Builder multiplier(double multiplier) {
			this.multiplier = multiplier;
			return this;
		}

		/**
		 * Sets the cap on one delay, 10 s by default.
		 * @param maxDelay the cap, at least the first delay
		 * @return this builder
		 */
		public Builder maxDelay(Duration maxDelay) {
			this.maxDelay = Objects.requireNonNull(maxDelay, "maxDelay");
			return this;
		}

		/**
		 * Sets the number of attempts in all, 5 by default.
		 * @param maxAttempts at least 1, or {@link #UNLIMITED} with a timeout
		 * @return this builder
		 */
		public Builder maxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * Sets the overall deadline, none by default.
		 * @param timeout the deadline, positive, or {@code null} for none
		 * @return this builder
		 */
		public Builder timeout(@Nullable Duration timeout) {
			this.timeout = timeout;
			return this;
		}

		/**
		 * Sets whether an exception of the polled call counts as an unmet attempt, {@code false}
		 * by default: the exception then ends the poll.
		 * @param ignoreExceptions whether to ignore exceptions
		 * @return this builder
		 */
		public Builder ignoreExceptions(boolean ignoreExceptions) {
			this.ignoreExceptions = ignoreExceptions;
			return this;
		}

		/**
		 * Checks the values and builds the settings.
		 * @return the settings
		 * @throws IllegalArgumentException naming the setting that is out of range, or when
		 * attempts are unlimited without a timeout
		 */
		public PollSettings build() {
			return new PollSettings(new BackoffPolicy(this.backoff, this.delay, this.multiplier, this.maxDelay),
					this.maxAttempts, this.timeout, this.ignoreExceptions);
		}

	}

}
