package dev.resilience.retry;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ManualScheduler;

import static dev.resilience.retry.RetryExecutionTests.ms;
import static dev.resilience.retry.RetryExecutionTests.rejected;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link Retry#callAsync}: the step of the blocking form driven on a scheduler, every delay
 * scheduled and none slept, outcomes through the future, cancellation.
 */
class RetryAsyncTests {

	private final ManualTicker ticker = new ManualTicker(9_000_000_000L);

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final List<String> events = new ArrayList<>();

	private final RetryListener listener = new RetryListener() {

		@Override
		public void onAttempt(String name, RetryAttempt attempt) {
			RetryAsyncTests.this.events.add(name + " " + attempt.number() + " " + attempt.outcome());
		}

		@Override
		public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
			RetryAsyncTests.this.events.add(name + " " + outcome.tag() + " after " + attempts.size());
		}

	};

	@Test
	void returnsBeforeTheFirstDelayWhichIsScheduledNotSlept() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> future = retry(policy()).callAsync(() -> (calls.incrementAndGet() < 2)
				? CompletableFuture.failedFuture(new IOException("down")) : CompletableFuture.completedFuture("ok"),
				this.scheduler);
		assertThat(future).isNotDone();
		assertThat(calls).hasValue(1);
		assertThat(this.scheduler.delays()).containsExactly(ms(100));
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(this.ticker.read()).isEqualTo(9_000_000_000L);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(calls).hasValue(2);
		assertThat(this.events).containsExactly("test 1 FAILED", "test 2 RETURNED", "test successful_with_retry after 2");
	}

	@Test
	void aFirstAttemptThatSucceedsCompletesAtOnce() {
		CompletableFuture<String> future = retry(policy()).callAsync(() -> CompletableFuture.completedFuture("ok"),
				this.scheduler);
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.scheduler.delays()).isEmpty();
		assertThat(this.events).containsExactly("test 1 RETURNED", "test successful_without_retry after 1");
	}

	@Test
	void aFailedStageIsRetriedByInvokingAgain() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> future = retry(policy()).callAsync(() -> {
			calls.incrementAndGet();
			return (calls.get() < 3) ? CompletableFuture.failedFuture(new IOException("down " + calls.get()))
					: CompletableFuture.completedFuture("third");
		}, this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("third");
		assertThat(calls).hasValue(3);
		assertThat(this.scheduler.delays()).containsExactly(ms(100), ms(200));
	}

	@Test
	void aSupplierThatThrowsIsAFailedAttempt() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> future = retry(policy()).callAsync(() -> {
			if (calls.incrementAndGet() == 1) {
				throw new IllegalStateException("thrown");
			}
			return CompletableFuture.completedFuture("ok");
		}, this.scheduler);
		assertThat(future).isNotDone();
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.events).startsWith("test 1 FAILED");
	}

	@Test
	void aSupplierReturningNoStageIsAFailedAttempt() {
		CompletableFuture<String> future = retry(policy().maxRetries(0)).callAsync(() -> null, this.scheduler);
		assertThat(failureOf(future)).isInstanceOf(NullPointerException.class)
			.hasMessage("The attempt returned no CompletionStage");
	}

	@Test
	void exhaustionFailsWithTheLastExceptionCarryingTheHistory() {
		AtomicInteger calls = new AtomicInteger();
		IOException last = new IOException("down 4");
		CompletableFuture<String> future = retry(policy()).callAsync(() -> {
			int call = calls.incrementAndGet();
			return CompletableFuture.failedFuture((call < 4) ? new IOException("down " + call) : last);
		}, this.scheduler);
		this.scheduler.runAll();
		assertThat(failureOf(future)).isSameAs(last);
		RetriesExhaustedException exhausted = RetriesExhaustedException.of(last);
		assertThat(exhausted.getMessage()).isEqualTo("Tried 4 times over 700ms");
		assertThat(exhausted.getAttempts()).extracting(RetryAttempt::delayBefore)
			.containsExactly(Duration.ZERO, ms(100), ms(200), ms(400));
		assertThat(this.scheduler.delays()).containsExactly(ms(100), ms(200), ms(400));
		assertThat(this.events).endsWith("test failed_with_retry after 4");
	}

	@Test
	void aFailureWrappedByADependentStageIsUnwrapped() {
		IOException failure = new IOException("down");
		CompletableFuture<String> future = retry(policy().maxRetries(0))
			.callAsync(() -> CompletableFuture.<String>failedFuture(new CompletionException(failure)), this.scheduler);
		assertThat(failureOf(future)).isSameAs(failure);
	}

	@Test
	void retryIfResultExhaustedFailsWithTheExhaustionHoldingTheLastResult() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> future = retry(policy().maxRetries(2)).callAsync(
				() -> CompletableFuture.completedFuture("pending " + calls.incrementAndGet()), (failure) -> true,
				(result) -> ((String) result).startsWith("pending"), this.scheduler);
		this.scheduler.runAll();
		RetriesExhaustedException exhausted = (RetriesExhaustedException) failureOf(future);
		assertThat(exhausted).hasMessage("Tried 3 times over 300ms");
		assertThat(exhausted.getLastResult()).isEqualTo("pending 3");
		assertThat(this.events).endsWith("test failed_with_retry after 3");
	}

	@Test
	void retryAfterBeyondMaxDelayStopsWithoutScheduling() {
		RateLimitExceededFailure failure = new RateLimitExceededFailure();
		CompletableFuture<String> future = retry(policy().maxDelay(Duration.ofSeconds(1)))
			.callAsync(() -> CompletableFuture.failedFuture(failure.value), this.scheduler);
		assertThat(failureOf(future)).isSameAs(failure.value);
		assertThat(this.scheduler.delays()).isEmpty();
		assertThat(RetriesExhaustedException.of(failure.value).getMessage())
			.isEqualTo("Tried 1 time over 0ms; stopped because Retry-After of 2s is beyond maxDelay 1s");
	}

	@Test
	void anExhaustedBudgetCountsFailedBudgetExhausted() {
		RetryPolicy.Builder policy = policy().budget(new RetryBudgetSettings(0, Duration.ofSeconds(1), 1));
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> future = retry(policy).callAsync(() -> {
			calls.incrementAndGet();
			return CompletableFuture.failedFuture(new IOException("down"));
		}, this.scheduler);
		this.scheduler.runAll();
		assertThat(calls).hasValue(2);
		assertThat(RetriesExhaustedException.of(failureOf(future)).getMessage())
			.isEqualTo("Tried 2 times over 100ms; stopped because the retry budget is exhausted");
		assertThat(this.events).endsWith("test failed_budget_exhausted after 2");
	}

	@Test
	void cancelWhileWaitingCancelsTheDelayAndNoFurtherAttemptRuns() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> future = retry(policy()).callAsync(() -> {
			calls.incrementAndGet();
			return CompletableFuture.failedFuture(new IOException("down"));
		}, this.scheduler);
		assertThat(this.scheduler.queued()).hasSize(1);
		assertThat(future.cancel(true)).isTrue();
		assertThat(this.scheduler.queued().get(0).isCancelled()).isTrue();
		this.scheduler.runAll();
		assertThat(calls).hasValue(1);
		assertThat(this.scheduler.delays()).containsExactly(ms(100));
		assertThat(this.events).containsExactly("test 1 FAILED");
	}

	@Test
	void cancelDuringAnAttemptCancelsTheAttemptsFuture() {
		List<CompletableFuture<String>> attempts = new ArrayList<>();
		CompletableFuture<String> future = retry(policy()).callAsync(() -> {
			CompletableFuture<String> attempt = new CompletableFuture<>();
			attempts.add(attempt);
			return attempt;
		}, this.scheduler);
		assertThat(attempts).hasSize(1);
		future.cancel(true);
		assertThat(attempts.get(0)).isCancelled();
		this.scheduler.runAll();
		assertThat(attempts).hasSize(1);
		assertThat(this.events).isEmpty();
	}

	@Test
	void aStageCompletedLaterIsJudgedOnTheScheduler() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = retry(policy()).callAsync(() -> attempt, this.scheduler);
		this.ticker.advance(ms(40));
		attempt.complete("late");
		assertThat(future).isNotDone();
		assertThat(this.scheduler.delays()).containsExactly(Duration.ZERO);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("late");
		assertThat(this.events).containsExactly("test 1 RETURNED", "test successful_without_retry after 1");
	}

	@Test
	void aRefusedDelayEndsTheCallWithTheLastFailure() {
		IOException failure = new IOException("down");
		this.scheduler.shutdown();
		CompletableFuture<String> future = retry(policy()).callAsync(() -> CompletableFuture.failedFuture(failure),
				this.scheduler);
		assertThat(failureOf(future)).isSameAs(failure);
		assertThat(RetriesExhaustedException.of(failure).getMessage())
			.isEqualTo("Tried 1 time over 0ms; stopped because the scheduler refused the next attempt (shut down)");
		assertThat(this.events).endsWith("test failed_without_retry after 1");
	}

	@Test
	void runsOnARealSchedulerWithoutBlockingTheCaller() throws Exception {
		ScheduledExecutorService real = new ScheduledThreadPoolExecutor(1);
		try {
			Retry retry = Retry.builder("real", RetryPolicy.builder().delay(ms(5)).jitter(Jitter.NONE).build()).build();
			AtomicInteger calls = new AtomicInteger();
			Supplier<CompletionStage<String>> attempt = () -> CompletableFuture.supplyAsync(() -> {
				if (calls.incrementAndGet() < 3) {
					throw new IllegalStateException("down");
				}
				return Thread.currentThread().getName();
			});
			CompletableFuture<String> future = retry.callAsync(attempt, real);
			assertThat(future.get(5, TimeUnit.SECONDS)).isNotNull();
			assertThat(calls).hasValue(3);
		}
		finally {
			real.shutdownNow();
		}
	}

	private static Throwable failureOf(CompletableFuture<?> future) {
		assertThat(future).isCompletedExceptionally();
		return catchThrowableOfType(ExecutionException.class, future::get).getCause();
	}

	private Retry retry(RetryPolicy.Builder policy) {
		return Retry.builder("test", policy.build())
			.ticker(this.ticker)
			.sleeper((nanos) -> {
				throw new AssertionError("an async call never sleeps");
			})
			.random(() -> 0.999_999_999)
			.listener(this.listener)
			.build();
	}

	private static RetryPolicy.Builder policy() {
		return RetryPolicy.builder().jitter(Jitter.NONE);
	}

	/** A rate-limit rejection asking for 2s. */
	private static final class RateLimitExceededFailure {

		final RuntimeException value = rejected(Duration.ofSeconds(2));

	}


}
