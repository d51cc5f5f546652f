package dev.resilience.retry;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** {@link RetryExecution}: every verdict of the step, on a manual clock, with nothing waited. */
class RetryExecutionTests {

	private final ManualTicker ticker = new ManualTicker(3_000_000_000L);

	private final List<String> events = new ArrayList<>();

	private final RetryListener listener = new RetryListener() {

		@Override
		public void onAttempt(String name, RetryAttempt attempt) {
			RetryExecutionTests.this.events.add(attempt.toString());
		}

		@Override
		public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
			RetryExecutionTests.this.events.add(name + " " + outcome.tag() + " after " + attempts.size());
		}

	};

	@Test
	void aReturnedValueEndsTheCallWithIt() {
		RetryExecution execution = retry(policy()).begin();
		execution.attemptStarting();
		this.ticker.advance(ms(7));
		RetryVerdict verdict = execution.returned("ok");
		assertThat(verdict).isEqualTo(new RetryVerdict(RetryVerdict.Kind.RETURN, 0, "ok", null));
		assertThat(verdict.isRetry()).isFalse();
		assertThat(execution.isOver()).isTrue();
		assertThat(this.events).containsExactly("#1 after 0ms, ran 7ms: returned", "test successful_without_retry after 1");
	}

	@Test
	void aRetryableFailureIsRetriedAfterTheDelayWithoutWaiting() {
		RetryExecution execution = retry(policy()).begin();
		execution.attemptStarting();
		this.ticker.advance(ms(3));
		RetryVerdict verdict = execution.failed(new IOException("down"));
		assertThat(verdict).isEqualTo(RetryVerdict.retryAfter(ms(100).toNanos()));
		assertThat(verdict.isRetry()).isTrue();
		assertThat(execution.isOver()).isFalse();
		assertThat(this.ticker.read()).isEqualTo(3_003_000_000L);
		assertThat(this.events).containsExactly("#1 after 0ms, ran 3ms: failed with java.io.IOException: down");
	}

	@Test
	void eachRetryTakesTheNextDelayAndTheHistoryRecordsIt() {
		RetryExecution execution = retry(policy()).begin();
		execution.attemptStarting();
		assertThat(execution.failed(new IOException("1")).delayNanos()).isEqualTo(ms(100).toNanos());
		this.ticker.advance(ms(100));
		execution.attemptStarting();
		this.ticker.advance(ms(5));
		assertThat(execution.failed(new IOException("2")).delayNanos()).isEqualTo(ms(200).toNanos());
		this.ticker.advance(ms(200));
		execution.attemptStarting();
		assertThat(execution.returned(42)).isEqualTo(RetryVerdict.returning(42));
		assertThat(execution.getAttempts()).extracting(RetryAttempt::delayBefore)
			.containsExactly(Duration.ZERO, ms(100), ms(200));
		assertThat(execution.getAttempts()).extracting(RetryAttempt::duration).containsExactly(Duration.ZERO, ms(5),
				Duration.ZERO);
		assertThat(this.events).endsWith("test successful_with_retry after 3");
	}

	@Test
	void aFailureThePolicyDoesNotRetryEndsTheCallWithItAlone() {
		RetryExecution execution = retry(policy().retryOn(List.of(IOException.class))).begin();
		execution.attemptStarting();
		IllegalStateException failure = new IllegalStateException("no");
		RetryVerdict verdict = execution.failed(failure);
		assertThat(verdict).isEqualTo(RetryVerdict.throwing(failure));
		assertThat(failure.getSuppressed()).isEmpty();
		assertThat(this.events).endsWith("test failed_without_retry after 1");
	}

	@Test
	void retryIfSaysNoEndsTheCall() {
		RetryExecution execution = retry(policy()).begin((failure) -> false, (result) -> false);
		execution.attemptStarting();
		IOException failure = new IOException("down");
		assertThat(execution.failed(failure).failure()).isSameAs(failure);
		assertThat(failure.getSuppressed()).isEmpty();
	}

	@Test
	void aRetryIfThatThrowsRidesAlongTheFailure() {
		IllegalStateException broken = new IllegalStateException("condition");
		RetryExecution execution = retry(policy()).begin((failure) -> {
			throw broken;
		}, (result) -> false);
		execution.attemptStarting();
		IOException failure = new IOException("down");
		assertThat(execution.failed(failure).failure()).isSameAs(failure);
		assertThat(failure.getSuppressed()).containsExactly(broken);
		assertThat(this.events).endsWith("test failed_without_retry after 1");
	}

	@Test
	void usedUpRetriesEndWithTheFailureCarryingTheExhaustion() {
		RetryExecution execution = retry(policy().maxRetries(1)).begin();
		execution.attemptStarting();
		execution.failed(new IOException("1"));
		this.ticker.advance(ms(100));
		execution.attemptStarting();
		this.ticker.advance(ms(10));
		IOException last = new IOException("2");
		RetryVerdict verdict = execution.failed(last);
		assertThat(verdict.kind()).isEqualTo(RetryVerdict.Kind.THROW);
		assertThat(verdict.failure()).isSameAs(last);
		RetriesExhaustedException exhausted = RetriesExhaustedException.of(last);
		assertThat(exhausted.getMessage()).isEqualTo("Tried 2 times over 110ms");
		assertThat(exhausted.getAttempts()).extracting(RetryAttempt::number).containsExactly(1, 2);
		assertThat(this.events).endsWith("test failed_with_retry after 2");
	}

	@Test
	void aResultToRetryIsRetriedThenEndsInAnExhaustionHoldingIt() {
		RetryExecution execution = retry(policy().maxRetries(1)).begin((failure) -> true, "pending"::equals);
		execution.attemptStarting();
		assertThat(execution.returned("pending")).isEqualTo(RetryVerdict.retryAfter(ms(100).toNanos()));
		this.ticker.advance(ms(100));
		execution.attemptStarting();
		RetryVerdict verdict = execution.returned("pending");
		assertThat(verdict.kind()).isEqualTo(RetryVerdict.Kind.THROW);
		RetriesExhaustedException exhausted = (RetriesExhaustedException) verdict.failure();
		assertThat(exhausted).hasMessage("Tried 2 times over 100ms");
		assertThat(exhausted.getLastResult()).isEqualTo("pending");
		assertThat(exhausted.getAttempts()).extracting(RetryAttempt::outcome)
			.containsExactly(RetryAttempt.Outcome.RESULT_RETRIED, RetryAttempt.Outcome.RESULT_RETRIED);
		assertThat(this.events).endsWith("test failed_with_retry after 2");
	}

	@Test
	void aRetryIfResultThatThrowsEndsWithItsExceptionAsAFailedAttempt() {
		IllegalStateException broken = new IllegalStateException("condition");
		RetryExecution execution = retry(policy()).begin((failure) -> true, (result) -> {
			throw broken;
		});
		execution.attemptStarting();
		assertThat(execution.returned("x")).isEqualTo(RetryVerdict.throwing(broken));
		assertThat(execution.getAttempts()).extracting(RetryAttempt::outcome).containsExactly(RetryAttempt.Outcome.FAILED);
		assertThat(this.events).endsWith("test failed_without_retry after 1");
	}

	@Test
	void retryAfterLengthensTheDelay() {
		RetryExecution execution = retry(policy()).begin();
		execution.attemptStarting();
		assertThat(execution.failed(rejected(ms(700)))).isEqualTo(RetryVerdict.retryAfter(ms(700).toNanos()));
	}

	@Test
	void retryAfterBeyondMaxDelayEndsAtOnce() {
		RetryExecution execution = retry(policy().maxDelay(Duration.ofSeconds(1))).begin();
		execution.attemptStarting();
		RateLimitExceededException failure = rejected(Duration.ofSeconds(2));
		assertThat(execution.failed(failure)).isEqualTo(RetryVerdict.throwing(failure));
		assertThat(RetriesExhaustedException.of(failure).getMessage())
			.isEqualTo("Tried 1 time over 0ms; stopped because Retry-After of 2s is beyond maxDelay 1s");
	}

	@Test
	void aDelayEndingPastMaxDurationEndsAtOnce() {
		RetryExecution execution = retry(policy().maxDuration(ms(150))).begin();
		execution.attemptStarting();
		this.ticker.advance(ms(60));
		IOException failure = new IOException("down");
		assertThat(execution.failed(failure).kind()).isEqualTo(RetryVerdict.Kind.THROW);
		assertThat(RetriesExhaustedException.of(failure).getMessage())
			.isEqualTo("Tried 1 time over 60ms; stopped because a delay of 100ms would end past maxDuration 150ms");
	}

	@Test
	void anEmptyBudgetEndsAtOnceCountedAsBudgetExhausted() {
		RetryExecution execution = retry(policy().budget(new RetryBudgetSettings(0, Duration.ofSeconds(1), 0))).begin();
		execution.attemptStarting();
		IOException failure = new IOException("down");
		assertThat(execution.failed(failure).kind()).isEqualTo(RetryVerdict.Kind.THROW);
		assertThat(RetriesExhaustedException.of(failure).getMessage())
			.isEqualTo("Tried 1 time over 0ms; stopped because the retry budget is exhausted");
		assertThat(this.events).endsWith("test failed_budget_exhausted after 1");
	}

	@Test
	void anInterruptedDriverDoesNotRetry() {
		RetryExecution execution = retry(policy()).begin();
		execution.attemptStarting();
		IOException failure = new IOException("down");
		assertThat(execution.failed(failure, true).kind()).isEqualTo(RetryVerdict.Kind.THROW);
		assertThat(RetriesExhaustedException.of(failure).getMessage())
			.isEqualTo("Tried 1 time over 0ms; stopped because the thread was interrupted");
	}

	@Test
	void abandonWhileWaitingEndsWithTheLastFailure() {
		RetryExecution execution = retry(policy()).begin();
		execution.attemptStarting();
		IOException failure = new IOException("down");
		execution.failed(failure);
		this.ticker.advance(ms(30));
		assertThat(execution.abandon("it was cancelled")).isEqualTo(RetryVerdict.throwing(failure));
		assertThat(RetriesExhaustedException.of(failure).getMessage())
			.isEqualTo("Tried 1 time over 30ms; stopped because it was cancelled");
		assertThat(execution.isOver()).isTrue();
		assertThat(this.events).endsWith("test failed_without_retry after 1");
	}

	@Test
	void abandonWhileWaitingForAResultEndsWithAnExhaustionHoldingIt() {
		RetryExecution execution = retry(policy()).begin((failure) -> true, (result) -> true);
		execution.attemptStarting();
		execution.returned("pending");
		RetriesExhaustedException exhausted = (RetriesExhaustedException) execution.abandon("stop").failure();
		assertThat(exhausted).hasMessage("Tried 1 time over 0ms; stopped because stop");
		assertThat(exhausted.getLastResult()).isEqualTo("pending");
	}

	@Test
	void theStepChecksItsOrder() {
		RetryExecution execution = retry(policy()).begin();
		assertThatIllegalStateException().isThrownBy(() -> execution.returned("x"))
			.withMessage("No attempt is running: call attemptStarting() first");
		assertThatIllegalStateException().isThrownBy(() -> execution.abandon("x"))
			.withMessage("Only a call waiting for its next attempt can be abandoned");
		execution.attemptStarting();
		assertThatIllegalStateException().isThrownBy(execution::attemptStarting)
			.withMessage("An attempt is running already");
		assertThatIllegalStateException().isThrownBy(() -> execution.abandon("x"));
		execution.returned("x");
		assertThatIllegalStateException().isThrownBy(execution::attemptStarting)
			.withMessage("The call is over: begin a new one");
		assertThatIllegalStateException().isThrownBy(() -> execution.failed(new IOException()));
	}

	@Test
	void beginRecordsAFirstAttemptInTheBudget() {
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(1, Duration.ofSeconds(1), 0), this.ticker);
		Retry retry = Retry.builder("test", policy().build()).ticker(this.ticker).budget(budget).build();
		assertThat(budget.available()).isZero();
		retry.begin();
		assertThat(budget.available()).isEqualTo(1);
	}

	@Test
	void verdictsCheckTheirValues() {
		assertThatIllegalArgumentException().isThrownBy(() -> RetryVerdict.retryAfter(-1))
			.withMessage("A RETRY verdict cannot have a delay of -1ns");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RetryVerdict(RetryVerdict.Kind.RETURN, 5, null, null))
			.withMessage("A RETURN verdict cannot have a delay of 5ns");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryVerdict(RetryVerdict.Kind.RETRY, 0, "x", null))
			.withMessage("A RETRY verdict has no value");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryVerdict(RetryVerdict.Kind.THROW, 0, null, null))
			.withMessage("A THROW verdict needs a failure");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RetryVerdict(RetryVerdict.Kind.RETURN, 0, null, new IOException()))
			.withMessage("A RETURN verdict has no failure");
		assertThat(RetryVerdict.retryAfter(0)).isEqualTo(new RetryVerdict(RetryVerdict.Kind.RETRY, 0, null, null));
	}

	private Retry retry(RetryPolicy.Builder policy) {
		return Retry.builder("test", policy.build())
			.ticker(this.ticker)
			.sleeper((nanos) -> {
				throw new AssertionError("the step never sleeps");
			})
			.random(() -> 0.999_999_999)
			.listener(this.listener)
			.build();
	}

	private static RetryPolicy.Builder policy() {
		return RetryPolicy.builder().jitter(Jitter.NONE);
	}

	static RateLimitExceededException rejected(Duration retryAfter) {
		return new RateLimitExceededException(
				new RateLimitDecision("partner", "", false, Duration.ZERO, retryAfter, List.of(), 0, 0));
	}

	static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

}
