package dev.resilience.retry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Retry}: attempts, conditions, limits, Retry-After, the history and listeners, on a manual clock. */
class RetryTests {

	private final ManualTicker ticker = new ManualTicker(5_000_000_000L);

	private final List<String> events = new ArrayList<>();

	private final RetryListener listener = new RetryListener() {

		@Override
		public void onAttempt(String name, RetryAttempt attempt) {
			RetryTests.this.events.add(name + " " + attempt.number() + " " + attempt.outcome());
		}

		@Override
		public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
			RetryTests.this.events.add(name + " " + outcome.tag() + " after " + attempts.size());
		}

	};

	@AfterEach
	void clearInterrupt() {
		Thread.interrupted();
	}

	@Test
	void successAtFirstMakesOneAttempt() throws Throwable {
		assertThat(retry(policy()).call(() -> "ok")).isEqualTo("ok");
		assertThat(this.events).containsExactly("test 1 RETURNED", "test successful_without_retry after 1");
		assertThat(this.ticker.sleeps()).isEmpty();
	}

	@Test
	void retriesUntilSuccessWaitingEachDelay() throws Throwable {
		AtomicInteger calls = new AtomicInteger();
		String result = retry(policy()).call(() -> {
			if (calls.incrementAndGet() < 3) {
				throw new IOException("down");
			}
			return "ok";
		});
		assertThat(result).isEqualTo("ok");
		assertThat(calls).hasValue(3);
		assertThat(this.ticker.sleeps()).containsExactly(ms(100), ms(200));
		assertThat(this.events).containsExactly("test 1 FAILED", "test 2 FAILED", "test 3 RETURNED",
				"test successful_with_retry after 3");
	}

	@Test
	void exhaustionRethrowsTheLastExceptionWithTheHistory() {
		AtomicInteger calls = new AtomicInteger();
		IOException last = new IOException("down 4");
		Throwable thrown = catchFailure(retry(policy()), () -> {
			this.ticker.advance(ms(10));
			if (calls.incrementAndGet() < 4) {
				throw new IOException("down " + calls.get());
			}
			throw last;
		});
		assertThat(thrown).isSameAs(last);
		assertThat(calls).hasValue(4);
		RetriesExhaustedException exhausted = RetriesExhaustedException.of(thrown);
		assertThat(exhausted).isNotNull();
		assertThat(exhausted.getMessage()).isEqualTo("Tried 4 times over 740ms");
		assertThat(exhausted.getLastResult()).isNull();
		assertThat(exhausted.getAttempts()).extracting(RetryAttempt::number).containsExactly(1, 2, 3, 4);
		assertThat(exhausted.getAttempts()).extracting(RetryAttempt::delayBefore)
			.containsExactly(Duration.ZERO, ms(100), ms(200), ms(400));
		assertThat(exhausted.getAttempts()).extracting(RetryAttempt::duration).containsOnly(ms(10));
		assertThat(exhausted.getAttempts()).extracting(RetryAttempt::outcome).containsOnly(RetryAttempt.Outcome.FAILED);
		assertThat(exhausted.getAttempts().get(3).failure()).isSameAs(last);
		assertThat(exhausted.getAttempts().get(1)).hasToString("#2 after 100ms, ran 10ms: failed with java.io.IOException: down 2");
		assertThat(this.events).endsWith("test failed_with_retry after 4");
	}

	@Test
	void aFailureThrownByTwoCallsCarriesTheHistoryOfTheLastOne() {
		// One exception instance thrown by every attempt of two calls, as a cached exception is.
		IOException shared = new IOException("down");
		Retry retry = retry(policy().maxRetries(1));
		catchFailure(retry, () -> {
			this.ticker.advance(ms(10));
			throw shared;
		});
		Throwable thrown = catchFailure(retry, () -> {
			this.ticker.advance(ms(50));
			throw shared;
		});
		assertThat(thrown).isSameAs(shared);
		RetriesExhaustedException exhausted = RetriesExhaustedException.of(thrown);
		assertThat(exhausted.getMessage()).isEqualTo("Tried 2 times over 200ms");
		assertThat(exhausted.getAttempts()).extracting(RetryAttempt::duration).containsOnly(ms(50));
	}

	@Test
	void aFailureThrownByManyCallsCarriesABoundedNumberOfExhaustions() {
		// A cached exception thrown by every call of a busy service: each call's exhaustion must
		// not stay on it for the life of the cache.
		IOException shared = new IOException("down");
		Retry retry = retry(policy().maxRetries(1));
		for (int i = 0; i < 1_000; i++) {
			catchFailure(retry, () -> {
				throw shared;
			});
		}
		assertThat(shared.getSuppressed()).hasSizeLessThanOrEqualTo(RetryExecution.MAX_EXHAUSTIONS_CARRIED)
			.allSatisfy((suppressed) -> assertThat(suppressed).isInstanceOf(RetriesExhaustedException.class));
		assertThat(RetriesExhaustedException.of(shared).getMessage()).startsWith("Tried 2 times");
	}

	@Test
	void aBrokenConditionAddsABoundedNumberOfFailuresToAReusedException() {
		IOException shared = new IOException("down");
		Retry retry = retry(policy());
		for (int i = 0; i < 1_000; i++) {
			catchFailure(() -> retry.call(() -> {
				throw shared;
			}, (ex) -> {
				throw new IllegalStateException("broken condition");
			}, (result) -> false));
		}
		assertThat(shared.getSuppressed()).hasSizeLessThanOrEqualTo(RetryExecution.MAX_EXHAUSTIONS_CARRIED);
	}

	@Test
	void zeroRetriesFailWithoutRetry() {
		IOException failure = new IOException("down");
		Throwable thrown = catchFailure(retry(policy().maxRetries(0)), () -> {
			throw failure;
		});
		assertThat(thrown).isSameAs(failure);
		assertThat(RetriesExhaustedException.of(thrown).getMessage()).isEqualTo("Tried 1 time over 0ms");
		assertThat(this.events).containsExactly("test 1 FAILED", "test failed_without_retry after 1");
	}

	@Test
	void errorsAreNeverRetried() {
		AtomicInteger calls = new AtomicInteger();
		OutOfMemoryError error = new OutOfMemoryError();
		Throwable thrown = catchFailure(retry(policy().retryOn(List.of(Throwable.class))), () -> {
			calls.incrementAndGet();
			throw error;
		});
		assertThat(thrown).isSameAs(error);
		assertThat(thrown.getSuppressed()).isEmpty();
		assertThat(calls).hasValue(1);
		assertThat(this.events).containsExactly("test 1 FAILED", "test failed_without_retry after 1");
	}

	@Test
	void onlyRetryOnTypesAreRetriedIncludingCauses() {
		Retry retry = retry(policy().retryOn(List.of(IOException.class)));
		assertThat(attempts(retry, new IllegalStateException("no"))).isEqualTo(1);
		assertThat(attempts(retry, new IOException("yes"))).isEqualTo(4);
		assertThat(attempts(retry, new UncheckedIOException(new IOException("cause")))).isEqualTo(4);
	}

	@Test
	void noRetryOnWinsOverRetryOnIncludingCauses() {
		Retry retry = retry(policy().retryOn(List.of(Exception.class)).noRetryOn(List.of(TimeoutException.class)));
		assertThat(attempts(retry, new TimeoutException())).isEqualTo(1);
		assertThat(attempts(retry, new IllegalStateException(new TimeoutException()))).isEqualTo(1);
		assertThat(attempts(retry, new IllegalStateException(new IOException()))).isEqualTo(4);
	}

	@Test
	void wrappedErrorsAndInterruptionsAreNeverRetried() {
		Retry retry = retry(policy().retryOn(List.of(Exception.class)));
		assertThat(attempts(retry, new IllegalStateException(new OutOfMemoryError()))).isEqualTo(1);
		assertThat(attempts(retry, new IllegalStateException(new UncheckedIOException(new IOException(new InterruptedException())))))
			.isEqualTo(1);
		assertThat(attempts(retry, new IllegalStateException(new IOException()))).isEqualTo(4);
	}

	@Test
	void aCycleOfCausesEndsTheSearch() {
		IllegalStateException outer = new IllegalStateException();
		IOException inner = new IOException(outer);
		outer.initCause(inner);
		assertThat(attempts(retry(policy().retryOn(List.of(IOException.class))), outer)).isEqualTo(4);
		assertThat(attempts(retry(policy().noRetryOn(List.of(IOException.class))), outer)).isEqualTo(1);
	}

	@Test
	void aFailureThatIsItsOwnCauseEndsTheSearch() {
		Retry retry = retry(policy().retryOn(List.of(IOException.class)));
		assertThat(attempts(retry, new SelfCaused())).isEqualTo(1);
		assertThat(retry(policy()).getPolicy().retries(new SelfCaused())).isTrue();
	}

	@Test
	void retryIfDecidesOnRetryableFailures() throws Throwable {
		Retry retry = retry(policy());
		AtomicInteger calls = new AtomicInteger();
		Throwable thrown = catchFailure(() -> retry.call(() -> {
			throw new IOException("attempt " + calls.incrementAndGet());
		}, (failure) -> !failure.getMessage().equals("attempt 2"), (result) -> false));
		assertThat(calls).hasValue(2);
		assertThat(thrown.getSuppressed()).isEmpty();
		assertThat(this.events).endsWith("test failed_with_retry after 2");
	}

	@Test
	void aRetryIfThatThrowsKeepsTheCallsFailureAndEndsTheCall() {
		IOException failure = new IOException("down");
		IllegalStateException broken = new IllegalStateException("condition");
		Throwable thrown = catchFailure(() -> retry(policy()).call(() -> {
			throw failure;
		}, (ex) -> {
			throw broken;
		}, (result) -> false));
		assertThat(thrown).isSameAs(failure);
		assertThat(thrown.getSuppressed()).containsExactly(broken);
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(this.events).containsExactly("test 1 FAILED", "test failed_without_retry after 1");
	}

	@Test
	void aRetryIfResultThatThrowsEndsTheCallWithItsFailure() {
		IllegalStateException broken = new IllegalStateException("condition");
		Throwable thrown = catchFailure(() -> retry(policy()).call(() -> "value", (ex) -> true, (result) -> {
			throw broken;
		}));
		assertThat(thrown).isSameAs(broken);
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(this.events).containsExactly("test 1 FAILED", "test failed_without_retry after 1");
	}

	@Test
	void retryIfResultRetriesResultsAndThrowsTheExhaustionHoldingTheLast() {
		AtomicInteger calls = new AtomicInteger();
		Throwable thrown = catchFailure(
				() -> retry(policy().maxRetries(2)).call(() -> "pending " + calls.incrementAndGet(), (failure) -> true,
						(result) -> ((String) result).startsWith("pending")));
		assertThat(thrown).isInstanceOf(RetriesExhaustedException.class).hasMessage("Tried 3 times over 300ms");
		RetriesExhaustedException exhausted = (RetriesExhaustedException) thrown;
		assertThat(exhausted.getLastResult()).isEqualTo("pending 3");
		assertThat(exhausted.getAttempts()).extracting(RetryAttempt::outcome)
			.containsOnly(RetryAttempt.Outcome.RESULT_RETRIED);
		assertThat(exhausted.getAttempts().get(0)).hasToString("#1 after 0ms, ran 0ms: returned a result to retry");
		assertThat(this.events).endsWith("test failed_with_retry after 3");
	}

	@Test
	void retryIfResultStopsOnAnAcceptedResult() throws Throwable {
		AtomicInteger calls = new AtomicInteger();
		Object result = retry(policy()).call(() -> calls.incrementAndGet(), (failure) -> true,
				(value) -> ((Integer) value) < 2);
		assertThat(result).isEqualTo(2);
		assertThat(this.events).endsWith("test successful_with_retry after 2");
	}

	@Test
	void maxDurationStopsBeforeADelayThatWouldEndPastIt() {
		// Attempts take 50ms; delays 100, 200, 400: 50 + 100 + 50 + 200 + 50 = 450, and 400 more would pass 800.
		Retry retry = retry(policy().maxRetries(10).maxDuration(ms(800)));
		AtomicInteger calls = new AtomicInteger();
		Throwable thrown = catchFailure(retry, () -> {
			calls.incrementAndGet();
			this.ticker.advance(ms(50));
			throw new IOException("down");
		});
		assertThat(calls).hasValue(3);
		assertThat(this.ticker.sleeps()).containsExactly(ms(100), ms(200));
		assertThat(RetriesExhaustedException.of(thrown).getMessage())
			.isEqualTo("Tried 3 times over 450ms; stopped because a delay of 400ms would end past maxDuration 800ms");
	}

	@Test
	void aDelayTooLongForNanosecondsStillStopsAtMaxDuration() {
		Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
		Retry retry = retry(policy().delay(forever).maxDelay(forever).maxDuration(Duration.ofHours(1)));
		Throwable thrown = catchFailure(retry, () -> {
			this.ticker.advance(ms(1));
			throw new IOException("down");
		});
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(RetriesExhaustedException.of(thrown).getMessage()).contains("would end past maxDuration");
	}

	@Test
	void maxDurationAllowsADelayEndingExactlyAtIt() {
		Retry retry = retry(policy().maxRetries(1).maxDuration(ms(100)));
		assertThat(attempts(retry, new IOException())).isEqualTo(2);
	}

	@Test
	void retryAfterOfARateLimitRejectionLengthensTheDelay() {
		Retry retry = retry(policy().maxRetries(2));
		attempts(retry, rejected(ms(700)));
		assertThat(this.ticker.sleeps()).containsExactly(ms(700), ms(700));
	}

	@Test
	void retryAfterShorterThanTheDelayLeavesTheDelay() {
		Retry retry = retry(policy().maxRetries(2));
		attempts(retry, new IllegalStateException(rejected(ms(150))));
		assertThat(this.ticker.sleeps()).containsExactly(ms(150), ms(200));
	}

	@Test
	void retryAfterBeyondMaxDelayStopsAtOnce() {
		Retry retry = retry(policy().maxDelay(Duration.ofSeconds(1)));
		Throwable thrown = catchFailure(retry, () -> {
			throw rejected(Duration.ofSeconds(2));
		});
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(RetriesExhaustedException.of(thrown).getMessage())
			.endsWith("stopped because Retry-After of 2s is beyond maxDelay 1s");
		assertThat(this.events).endsWith("test failed_without_retry after 1");
	}

	@Test
	void retryAfterAtMaxDelayIsWaited() {
		Retry retry = retry(policy().maxRetries(1).maxDelay(Duration.ofSeconds(1)));
		attempts(retry, rejected(Duration.ofSeconds(1)));
		assertThat(this.ticker.sleeps()).containsExactly(Duration.ofSeconds(1));
	}

	@Test
	void retryAfterBeyondMaxDurationStopsAtOnce() {
		Retry retry = retry(policy().maxDuration(Duration.ofSeconds(1)));
		attempts(retry, rejected(Duration.ofSeconds(2)));
		assertThat(this.ticker.sleeps()).isEmpty();
	}

	@Test
	void otherRetryAfterReadersAreAskedAfterRateLimits() {
		RetryAfter header = (failure) -> (failure instanceof IOException) ? ms(900) : null;
		Retry retry = Retry.builder("test", policy().maxRetries(1).build())
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.random(() -> 0.999)
			.retryAfter(RetryAfter.rateLimits().or(header))
			.build();
		attempts(retry, new IOException());
		attempts(retry, rejected(ms(300)));
		attempts(retry, new IllegalStateException());
		assertThat(this.ticker.sleeps()).containsExactly(ms(900), ms(300), ms(100));
	}

	@Test
	void interruptDuringADelayEndsRetryingAndKeepsTheFlag() {
		AtomicInteger calls = new AtomicInteger();
		Retry retry = Retry.builder("test", policy().build()).ticker(this.ticker).sleeper((nanos) -> {
			throw new InterruptedException();
		}).build();
		IOException failure = new IOException("down");
		Throwable thrown = catchFailure(retry, () -> {
			calls.incrementAndGet();
			throw failure;
		});
		assertThat(thrown).isSameAs(failure);
		assertThat(calls).hasValue(1);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
		assertThat(RetriesExhaustedException.of(thrown).getMessage())
			.endsWith("stopped because the thread was interrupted during the delay");
	}

	@Test
	void anInterruptedThreadDoesNotRetry() {
		AtomicInteger calls = new AtomicInteger();
		Throwable thrown = catchFailure(retry(policy()), () -> {
			calls.incrementAndGet();
			Thread.currentThread().interrupt();
			throw new IOException("down");
		});
		assertThat(calls).hasValue(1);
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
		assertThat(RetriesExhaustedException.of(thrown).getMessage()).endsWith("stopped because the thread was interrupted");
		assertThat(this.ticker.sleeps()).isEmpty();
	}

	@Test
	void interruptedExceptionIsNeverRetried() {
		Retry retry = retry(policy());
		assertThat(attempts(retry, new InterruptedException())).isEqualTo(1);
	}

	@Test
	void theBudgetStopsRetriesItHasNoneFor() {
		RetryPolicy policy = policy().maxRetries(3).budget(new RetryBudgetSettings(0, Duration.ofSeconds(1), 2)).build();
		Retry retry = retry(policy);
		assertThat(attempts(retry, new IOException())).isEqualTo(3);
		assertThat(this.events).endsWith("test failed_budget_exhausted after 3");
		Throwable thrown = catchFailure(retry, () -> {
			throw new IOException();
		});
		assertThat(RetriesExhaustedException.of(thrown).getMessage())
			.isEqualTo("Tried 1 time over 0ms; stopped because the retry budget is exhausted");
	}

	@Test
	void aSharedBudgetServesEveryRetryOfIt() {
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(0, Duration.ofSeconds(1), 1), this.ticker);
		Retry first = Retry.builder("a", policy().build()).ticker(this.ticker).sleeper((nanos) -> {
		}).budget(budget).build();
		Retry second = Retry.builder("b", policy().build()).ticker(this.ticker).sleeper((nanos) -> {
		}).budget(budget).build();
		assertThat(attempts(first, new IOException())).isEqualTo(2);
		assertThat(attempts(second, new IOException())).isEqualTo(1);
	}

	@Test
	void builderDefaultsRetryWithTheSystemClock() throws Throwable {
		Retry retry = Retry.builder("plain", RetryPolicy.builder().delay(Duration.ZERO).build()).build();
		AtomicInteger calls = new AtomicInteger();
		assertThat(retry.call(() -> (calls.incrementAndGet() < 2) ? fail() : "ok")).isEqualTo("ok");
		assertThat(retry.getName()).isEqualTo("plain");
	}

	@Test
	void aListenerThatThrowsChangesNothing() throws Throwable {
		RetryListener failing = new RetryListener() {

			@Override
			public void onAttempt(String name, RetryAttempt attempt) {
				throw new IllegalStateException("listener");
			}

			@Override
			public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
				throw new IllegalStateException("listener");
			}

		};
		Retry retry = Retry.builder("test", policy().build()).ticker(this.ticker).sleeper(this.ticker.sleeper())
			.listener(failing)
			.listener(this.listener)
			.build();
		assertThat(retry.call(() -> "ok")).isEqualTo("ok");
		assertThat(this.events).containsExactly("test 1 RETURNED", "test successful_without_retry after 1");
	}

	private static String fail() throws IOException {
		throw new IOException();
	}

	private int attempts(Retry retry, Exception failure) {
		AtomicInteger calls = new AtomicInteger();
		catchFailure(retry, () -> {
			calls.incrementAndGet();
			throw failure;
		});
		return calls.get();
	}

	private static Throwable catchFailure(Retry retry, RetryableCall<Object> call) {
		return catchFailure(() -> retry.call(call));
	}

	private static Throwable catchFailure(RetryableCall<?> call) {
		try {
			call.call();
		}
		catch (Throwable ex) {
			return ex;
		}
		throw new AssertionError("expected a failure");
	}

	private Retry retry(RetryPolicy.Builder policy) {
		return retry(policy.build());
	}

	private Retry retry(RetryPolicy policy) {
		return Retry.builder("test", policy)
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.random(() -> 0.999_999_999)
			.listener(this.listener)
			.build();
	}

	private static RetryPolicy.Builder policy() {
		return RetryPolicy.builder().jitter(Jitter.NONE);
	}

	private static RateLimitExceededException rejected(Duration retryAfter) {
		return new RateLimitExceededException(
				new RateLimitDecision("partner", "", false, Duration.ZERO, retryAfter, List.of(), 0, 0));
	}

	private static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

	/** An exception whose cause is itself, as some libraries make them. */
	private static final class SelfCaused extends RuntimeException {

		private static final long serialVersionUID = 1L;

		@Override
		public synchronized @Nullable Throwable getCause() {
			return this;
		}

	}

}
