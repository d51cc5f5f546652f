package dev.resilience.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import dev.resilience.Causes;
import dev.resilience.Durations;
import dev.resilience.Listeners;
import dev.resilience.DurationText;
import dev.resilience.Sleeper;
import dev.resilience.Ticker;

/**
 * Runs calls under a {@link RetryPolicy}: after an attempt that fails with a retryable exception
 * (or returns a result to retry), waits the next of the policy's {@link RetryDelays}, at least
 * as long as the failure's {@link RetryAfter}, and tries again, until an attempt succeeds or
 * retrying ends. Retrying ends when the retries are used up; when the failure is or wraps an
 * {@link Error} or an {@link InterruptedException}, is not of a kind the policy retries, or its
 * condition says no (these are thrown as they are); when Retry-After asks for more than the
 * maximum delay; when the delay would end past the maximum duration; when the retry budget
 * has none left; or when the thread is interrupted, whose flag is then kept. Thread safe: one
 * {@code Retry} serves all callers of a policy.
 */
public final class Retry {

	private static final System.Logger logger = System.getLogger(Retry.class.getName());

	private final String name;

	private final RetryPolicy policy;

	private final @Nullable RetryBudget budget;

	private final Ticker ticker;

	private final Sleeper sleeper;

	private final DoubleSupplier random;

	private final RetryAfter retryAfter;

	private final List<RetryListener> listeners;

	private Retry(Builder builder) {
		this.name = builder.name;
		this.policy = builder.policy;
		this.ticker = builder.ticker;
		this.sleeper = builder.sleeper;
		this.random = builder.random;
		this.retryAfter = builder.retryAfter;
		this.listeners = List.copyOf(builder.listeners);
		RetryBudgetSettings budgetSettings = this.policy.budget();
		this.budget = (builder.budget != null) ? builder.budget
				: (budgetSettings != null) ? new RetryBudget(budgetSettings, this.ticker) : null;
	}

	/**
	 * Returns a builder of a retry with the system clock and sleeper, thread-local random
	 * numbers, Retry-After read from rate-limit rejections, no listeners, and a budget of its own
	 * when the policy has one.
	 * @param name the name told to listeners
	 * @param policy the policy
	 * @return the builder
	 */
	public static Builder builder(String name, RetryPolicy policy) {
		return new Builder(name, policy);
	}

	/**
	 * Returns the name told to listeners.
	 * @return the name
	 */
	public String getName() {
		return this.name;
	}

	/**
	 * Returns the policy.
	 * @return the policy
	 */
	public RetryPolicy getPolicy() {
		return this.policy;
	}

	/**
	 * Runs a call, retrying every failure the policy retries.
	 * @param <T> the result
	 * @param call one attempt
	 * @return the result of the first successful attempt
	 * @throws Throwable the last attempt's exception, with a suppressed
	 * {@link RetriesExhaustedException} when retrying was cut short
	 */
	public <T extends @Nullable Object> T call(RetryableCall<T> call) throws Throwable {
		return call(call, (failure) -> true, (result) -> false);
	}

	/**
	 * Runs a call with conditions of its own.
	 * @param <T> the result
	 * @param call one attempt
	 * @param retryIf whether to retry a failure the policy retries; when it throws, the call ends
	 * without retrying and throws the failure, the condition's exception added as suppressed
	 * @param retryIfResult whether to retry a returned result; when it throws, the call ends with
	 * the condition's exception, counted as a failed attempt
	 * @return the first result not retried
	 * @throws RetriesExhaustedException holding the last result when retrying for a result ended
	 * @throws Throwable the last attempt's exception, with a suppressed
	 * {@link RetriesExhaustedException} when retrying was cut short
	 */
	public <T extends @Nullable Object> T call(RetryableCall<T> call, Predicate<Throwable> retryIf,
			Predicate<@Nullable Object> retryIfResult) throws Throwable {
		Attempts attempts = new Attempts(this.ticker.read(), this.policy.delays(this.random));
		if (this.budget != null) {
			this.budget.recordFirstAttempt();
		}
		long delayBefore = 0;
		while (true) {
			long start = this.ticker.read();
			T result;
			try {
				result = call.call();
			}
			catch (Throwable failure) {
				attempts.add(delayBefore, start, RetryAttempt.Outcome.FAILED, failure);
				boolean retry;
				try {
					retry = this.policy.retries(failure) && retryIf.test(failure);
				}
				catch (RuntimeException conditionFailure) {
					// The call's own failure is what the caller needs; the broken condition rides along.
					failure.addSuppressed(conditionFailure);
					retry = false;
				}
				if (!retry) {
					throw end(attempts, RetryCallOutcome.of(false, attempts.size()), failure);
				}
				Stop stop = next(attempts, retryAfterOf(failure));
				if (stop != null) {
					failure.addSuppressed(exhausted(attempts, stop.reason, null));
					throw end(attempts, stop.outcome, failure);
				}
				delayBefore = attempts.delay;
				continue;
			}
			boolean retryResult;
			try {
				retryResult = retryIfResult.test(result);
			}
			catch (RuntimeException conditionFailure) {
				// No failure of the call to keep: the condition's is thrown, the call still ends.
				attempts.add(delayBefore, start, RetryAttempt.Outcome.FAILED, conditionFailure);
				throw end(attempts, RetryCallOutcome.of(false, attempts.size()), conditionFailure);
			}
			if (!retryResult) {
				attempts.add(delayBefore, start, RetryAttempt.Outcome.RETURNED, null);
				end(attempts, RetryCallOutcome.of(true, attempts.size()), null);
				return result;
			}
			attempts.add(delayBefore, start, RetryAttempt.Outcome.RESULT_RETRIED, null);
			Stop stop = next(attempts, null);
			if (stop != null) {
				throw end(attempts, stop.outcome, exhausted(attempts, stop.reason, result));
			}
			delayBefore = attempts.delay;
		}
	}

	/** Decides on the next retry and waits for it; returns why not when there is none. */
	private @Nullable Stop next(Attempts attempts, @Nullable Duration retryAfter) {
		RetryCallOutcome failed = RetryCallOutcome.of(false, attempts.size());
		if (!attempts.delays.hasNext()) {
			return new Stop(failed, "");
		}
		if (Thread.currentThread().isInterrupted()) {
			return new Stop(failed, "the thread was interrupted");
		}
		long delay = Durations.saturatedNanos(attempts.delays.next());
		if (retryAfter != null) {
			if (retryAfter.compareTo(this.policy.backoff().maxDelay()) > 0) {
				return new Stop(failed, "Retry-After of " + DurationText.of(retryAfter) + " is beyond maxDelay "
						+ DurationText.of(this.policy.backoff().maxDelay()));
			}
			delay = Math.max(delay, Durations.saturatedNanos(retryAfter));
		}
		Duration maxDuration = this.policy.maxDuration();
		long elapsed = this.ticker.read() - attempts.start;
		// Subtracting cannot overflow where adding could: the delay may be saturated.
		if (maxDuration != null && delay > Durations.saturatedNanos(maxDuration) - elapsed) {
			return new Stop(failed, "a delay of " + DurationText.of(Duration.ofNanos(delay)) + " would end past maxDuration "
					+ DurationText.of(maxDuration));
		}
		if (this.budget != null && !this.budget.tryRetry()) {
			return new Stop(RetryCallOutcome.FAILED_BUDGET_EXHAUSTED, "the retry budget is exhausted");
		}
		try {
			this.sleeper.sleep(delay);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new Stop(failed, "the thread was interrupted during the delay");
		}
		attempts.delay = delay;
		return null;
	}

	private @Nullable Duration retryAfterOf(Throwable failure) {
		for (Throwable cause : Causes.chain(failure)) {
			Duration wait = this.retryAfter.of(cause);
			if (wait != null) {
				return wait;
			}
		}
		return null;
	}

	private RetriesExhaustedException exhausted(Attempts attempts, String reason, @Nullable Object result) {
		long elapsed = this.ticker.read() - attempts.start;
		String message = "Tried " + attempts.size() + ((attempts.size() == 1) ? " time" : " times") + " over "
				+ DurationText.of(Duration.ofNanos(elapsed)) + (reason.isEmpty() ? "" : "; stopped because " + reason);
		return new RetriesExhaustedException(message, attempts.list, result);
	}

	private <X extends @Nullable Throwable> X end(Attempts attempts, RetryCallOutcome outcome, X thrown) {
		List<RetryAttempt> history = List.copyOf(attempts.list);
		tell((listener) -> listener.onCallEnded(this.name, outcome, history));
		return thrown;
	}

	private void tell(Consumer<RetryListener> event) {
		Listeners.tell(this.listeners, event, logger, "Retry listener");
	}

	/** Why retrying stopped, and how the call is counted. */
	private record Stop(RetryCallOutcome outcome, String reason) {
	}

	/** The history of one call. */
	private final class Attempts {

		final long start;

		final RetryDelays delays;

		final List<RetryAttempt> list = new ArrayList<>();

		/** The delay waited before the next attempt. */
		long delay;

		Attempts(long start, RetryDelays delays) {
			this.start = start;
			this.delays = delays;
		}

		int size() {
			return this.list.size();
		}

		void add(long delayBefore, long attemptStart, RetryAttempt.Outcome outcome, @Nullable Throwable failure) {
			RetryAttempt attempt = new RetryAttempt(this.list.size() + 1, Duration.ofNanos(delayBefore),
					Duration.ofNanos(Retry.this.ticker.read() - attemptStart), outcome, failure);
			this.list.add(attempt);
			tell((listener) -> listener.onAttempt(Retry.this.name, attempt));
		}

	}

	/** Collects what a {@link Retry} uses besides its policy. */
	public static final class Builder {

		private final String name;

		private final RetryPolicy policy;

		private Ticker ticker = Ticker.system();

		private Sleeper sleeper = Sleeper.system();

		private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();

		private RetryAfter retryAfter = RetryAfter.rateLimits();

		private final List<RetryListener> listeners = new ArrayList<>();

		private @Nullable RetryBudget budget;

		private Builder(String name, RetryPolicy policy) {
			this.name = Objects.requireNonNull(name, "name");
			this.policy = Objects.requireNonNull(policy, "policy");
		}

		/**
		 * Sets the clock that measures attempts, delays and the budget's window.
		 * @param ticker the clock
		 * @return this builder
		 */
		public Builder ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker");
			return this;
		}

		/**
		 * Sets how the delays are waited.
		 * @param sleeper the sleeper
		 * @return this builder
		 */
		public Builder sleeper(Sleeper sleeper) {
			this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
			return this;
		}

		/**
		 * Sets the random numbers of the jitter.
		 * @param random gives numbers in {@code [0, 1)}
		 * @return this builder
		 */
		public Builder random(DoubleSupplier random) {
			this.random = Objects.requireNonNull(random, "random");
			return this;
		}

		/**
		 * Sets how a failure's Retry-After is read; rate-limit rejections are read unless replaced.
		 * @param retryAfter the reader
		 * @return this builder
		 */
		public Builder retryAfter(RetryAfter retryAfter) {
			this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
			return this;
		}

		/**
		 * Adds a listener.
		 * @param listener told of every attempt and call
		 * @return this builder
		 */
		public Builder listener(RetryListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener"));
			return this;
		}

		/**
		 * Shares a budget with other retries of the same policy name; replaces the budget the
		 * retry would make of its policy's settings.
		 * @param budget the shared budget, or {@code null} to use the policy's own
		 * @return this builder
		 */
		public Builder budget(@Nullable RetryBudget budget) {
			this.budget = budget;
			return this;
		}

		/**
		 * Builds the retry.
		 * @return the retry
		 */
		public Retry build() {
			return new Retry(this);
		}

	}

}
