package dev.resilience.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.internal.Causes;
import dev.resilience.internal.Listeners;
import dev.resilience.internal.ScheduledAttempts;
import dev.resilience.observation.ResilienceObservations;

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
 * <p>
 * The policy is one step, a {@link RetryExecution} ({@link #begin(Predicate, Predicate)}): an
 * attempt's outcome in, a {@link RetryVerdict} out. {@link #call(RetryableCall, Predicate, Predicate)}
 * drives it on the calling thread, sleeping the delays;
 * {@link #callAsync(Supplier, Predicate, Predicate, ScheduledExecutorService)} drives it on a
 * scheduler, waiting for nothing; a reactive operator can drive it too.
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

	private final ResilienceObservations observations;

	private Retry(Builder builder) {
		this.observations = builder.observations;
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
	 * Runs a call with conditions of its own, on this thread: makes each attempt, reports its
	 * outcome to a {@link #begin(Predicate, Predicate) RetryExecution} and sleeps each delay it asks
	 * for. An interrupted thread makes no further attempt and keeps its interrupt flag.
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
	@SuppressWarnings("unchecked")
	public <T extends @Nullable Object> T call(RetryableCall<T> call, Predicate<Throwable> retryIf,
			Predicate<@Nullable Object> retryIfResult) throws Throwable {
		Objects.requireNonNull(call, "call");
		RetryExecution execution = begin(retryIf, retryIfResult);
		while (true) {
			execution.attemptStarting();
			T result = null;
			Throwable failure = null;
			try {
				result = call.call();
			}
			catch (Throwable ex) {
				failure = ex;
			}
			boolean interrupted = Thread.currentThread().isInterrupted();
			RetryVerdict verdict = (failure != null) ? execution.failed(failure, interrupted)
					: execution.returned(result, interrupted);
			if (verdict.kind() == RetryVerdict.Kind.RETURN) {
				return (T) verdict.value();
			}
			if (verdict.kind() == RetryVerdict.Kind.RETRY) {
				try {
					this.sleeper.sleep(verdict.delayNanos());
					continue;
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					verdict = execution.abandon("the thread was interrupted during the delay");
				}
			}
			throw Objects.requireNonNull(verdict.failure());
		}
	}

	/**
	 * Runs a call asynchronously, retrying every failure the policy retries.
	 * @param <T> the result
	 * @param attempt makes one attempt and returns its stage
	 * @param scheduler waits the delays and makes the attempts after the first
	 * @return the call's future, as for
	 * {@link #callAsync(Supplier, Predicate, Predicate, ScheduledExecutorService)}
	 */
	public <T extends @Nullable Object> CompletableFuture<T> callAsync(
			Supplier<? extends CompletionStage<? extends T>> attempt, ScheduledExecutorService scheduler) {
		return callAsync(attempt, (failure) -> true, (result) -> false, scheduler);
	}

	/**
	 * Runs a call asynchronously, with conditions of its own; returns at once. The first attempt is
	 * made on this thread, each later one on the scheduler after its delay is scheduled there (no
	 * thread waits). An attempt that throws, or whose stage fails, is a failed attempt; the stage's
	 * value is the attempt's result. The outcomes, histories, listeners and budget are those of
	 * {@link #call(RetryableCall, Predicate, Predicate)}, and so are the exceptions, which complete
	 * the future: the last failure with a suppressed {@link RetriesExhaustedException}, or that
	 * exception holding the last result. A stage that completes later is judged on the scheduler,
	 * never on the thread that completed it.
	 * <p>
	 * Cancelling the returned future cancels the pending delay and the running attempt's stage
	 * ({@code toCompletableFuture().cancel(true)}); no further attempt starts. A cancelled call is
	 * not reported to listeners as ended: it has no outcome. When the scheduler refuses the next
	 * attempt (it is shut down), the call ends as if abandoned, with the last failure and an
	 * exhaustion saying so.
	 * @param <T> the result
	 * @param attempt makes one attempt and returns its stage
	 * @param retryIf whether to retry a failure the policy retries, as for {@code call}
	 * @param retryIfResult whether to retry a result, as for {@code call}
	 * @param scheduler waits the delays and makes the attempts after the first
	 * @return the call's future
	 */
	public <T extends @Nullable Object> CompletableFuture<T> callAsync(
			Supplier<? extends CompletionStage<? extends T>> attempt, Predicate<Throwable> retryIf,
			Predicate<@Nullable Object> retryIfResult, ScheduledExecutorService scheduler) {
		Objects.requireNonNull(attempt, "attempt");
		AsyncCall<T> call = new AsyncCall<>(begin(retryIf, retryIfResult), attempt, scheduler);
		call.attemptNow();
		return call.future();
	}

	/**
	 * Begins one call of this retry, to be driven by the caller: the step that
	 * {@link #call(RetryableCall, Predicate, Predicate)} and
	 * {@link #callAsync(Supplier, Predicate, Predicate, ScheduledExecutorService)} drive, for a
	 * driver of its own such as a reactive operator. The call starts now: its maximum duration is
	 * counted from here, and the budget records its first attempt.
	 * @param retryIf whether to retry a failure the policy retries
	 * @param retryIfResult whether to retry a returned result
	 * @return the call's execution
	 */
	public RetryExecution begin(Predicate<Throwable> retryIf, Predicate<@Nullable Object> retryIfResult) {
		return new RetryExecution(this, Objects.requireNonNull(retryIf, "retryIf"),
				Objects.requireNonNull(retryIfResult, "retryIfResult"));
	}

	/**
	 * Begins one call that retries every failure the policy retries and no result.
	 * @return the call's execution
	 * @see #begin(Predicate, Predicate)
	 */
	public RetryExecution begin() {
		return begin((failure) -> true, (result) -> false);
	}

	Ticker ticker() {
		return this.ticker;
	}

	DoubleSupplier random() {
		return this.random;
	}

	@Nullable RetryBudget budget() {
		return this.budget;
	}

	@Nullable Duration retryAfterOf(Throwable failure) {
		for (Throwable cause : Causes.chain(failure)) {
			Duration wait = this.retryAfter.of(cause);
			if (wait != null) {
				return wait;
			}
		}
		return null;
	}

	ResilienceObservations observations() {
		return this.observations;
	}

	void tell(Consumer<RetryListener> event) {
		Listeners.tell(this.listeners, event, logger, "Retry listener");
	}

	/** One call on a scheduler: the step of a {@link RetryExecution}, driven by {@link ScheduledAttempts}. */
	private static final class AsyncCall<T extends @Nullable Object> extends ScheduledAttempts<T> {

		private final RetryExecution execution;

		private final Supplier<? extends CompletionStage<? extends T>> attempt;

		AsyncCall(RetryExecution execution, Supplier<? extends CompletionStage<? extends T>> attempt,
				ScheduledExecutorService scheduler) {
			super(scheduler);
			this.execution = execution;
			this.attempt = attempt;
			future().whenComplete((value, failure) -> {
				if (future().isCancelled()) {
					execution.cancel();
				}
			});
		}

		@Override
		protected CompletionStage<?> invoke() {
			this.execution.attemptStarting();
			return this.attempt.get();
		}

		@Override
		@SuppressWarnings("unchecked")
		protected void judge(@Nullable Object value, @Nullable Throwable failure) {
			RetryVerdict verdict = (failure != null) ? this.execution.failed(failure) : this.execution.returned(value);
			switch (verdict.kind()) {
				case RETRY -> attemptAfter(verdict.delayNanos());
				case RETURN -> complete((T) verdict.value());
				case THROW -> fail(Objects.requireNonNull(verdict.failure()));
			}
		}

		@Override
		protected void rejected(RejectedExecutionException refusal) {
			fail(Objects.requireNonNull(
					this.execution.abandon("the scheduler refused the next attempt (" + refusal.getMessage() + ")").failure()));
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

		private ResilienceObservations observations = ResilienceObservations.none();

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
		 * Sets where the retried calls are observed ({@code resilience.retry}); none by default.
		 * @param observations the observations
		 * @return this builder
		 */
		public Builder observations(ResilienceObservations observations) {
			this.observations = Objects.requireNonNull(observations, "observations");
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
