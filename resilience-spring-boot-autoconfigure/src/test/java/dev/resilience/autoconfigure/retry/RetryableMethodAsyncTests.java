package dev.resilience.autoconfigure.retry;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.util.ReflectionUtils;

import dev.resilience.ManualTicker;
import dev.resilience.ManualScheduler;
import dev.resilience.autoconfigure.support.ReturnKind;
import dev.resilience.autoconfigure.support.ProposedSettings;
import dev.resilience.retry.Jitter;
import dev.resilience.retry.RetriesExhaustedException;
import dev.resilience.retry.RetryExecution;
import dev.resilience.retry.RetryPolicy;
import dev.resilience.retry.RetryRegistry;
import dev.resilience.retry.RetryVerdict;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link RetryableMethod#callAsync}, {@link RetryableMethod#begin} and
 * {@link RetryableMethod#fallback}: the method's SpEL conditions and its fallback on the async
 * path, on a manual clock and scheduler.
 */
class RetryableMethodAsyncTests {

	private final ManualTicker ticker = new ManualTicker(1_000_000_000L);

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final RetryRegistry registry = RetryRegistry.builder()
		.policy("partner", RetryPolicy.builder().maxRetries(2).jitter(Jitter.NONE).build())
		.ticker(this.ticker)
		.retries((retry) -> retry.sleeper((nanos) -> {
			throw new AssertionError("never sleeps");
		}))
		.build();

	private final Client client = new Client();

	@Test
	void aFailedStageIsRetriedAndTheValueCompletesTheFuture() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<@Nullable Object> future = bind("plain").callAsync(this.client, new Object[] { "a" },
				() -> (calls.incrementAndGet() < 3) ? CompletableFuture.failedFuture(new IOException("down"))
						: CompletableFuture.completedFuture("ok"),
				identity(), this.scheduler);
		assertThat(future).isNotDone();
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("ok");
		assertThat(this.scheduler.delays()).containsExactly(ms(100), ms(200));
	}

	@Test
	void retryIfResultReadsTheStagesValueAndTheArguments() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<@Nullable Object> future = bind("pending").callAsync(this.client, new Object[] { "PENDING" },
				() -> CompletableFuture.completedFuture((calls.incrementAndGet() < 2) ? "PENDING" : "DONE"), identity(),
				this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("DONE");
		assertThat(calls).hasValue(2);
	}

	@Test
	void retryIfReadsTheException() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<@Nullable Object> future = bind("plain").callAsync(this.client, new Object[] { "a" }, () -> {
			calls.incrementAndGet();
			return CompletableFuture.failedFuture(new IOException("fatal"));
		}, identity(), this.scheduler);
		this.scheduler.runAll();
		assertThat(failureOf(future)).isInstanceOf(IOException.class).hasMessage("fatal");
		assertThat(calls).hasValue(1);
	}

	@Test
	void exhaustionWithoutFallbackFailsWithTheLastFailureAndTheHistory() {
		CompletableFuture<@Nullable Object> future = bind("plain").callAsync(this.client, new Object[] { "a" },
				() -> CompletableFuture.failedFuture(new IOException("down")), identity(), this.scheduler);
		this.scheduler.runAll();
		Throwable failure = failureOf(future);
		assertThat(failure).hasMessage("down");
		assertThat(RetriesExhaustedException.of(failure).getMessage()).isEqualTo("Tried 3 times over 300ms");
	}

	@Test
	void exhaustionCallsTheFallbackWhoseValueCompletesTheFuture() {
		CompletableFuture<@Nullable Object> future = bind("withFallback").callAsync(this.client, new Object[] { "a" },
				() -> CompletableFuture.failedFuture(new IOException("down")), identity(), this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("fallback a after down");
	}

	@Test
	void theMostSpecificFallbackOverloadIsCalled() {
		CompletableFuture<@Nullable Object> future = bind("withFallback").callAsync(this.client, new Object[] { "a" },
				() -> CompletableFuture.failedFuture(new FileNotFoundException("gone")), identity(), this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("missing a after gone");
	}

	@Test
	void aFallbackReturningAStageCompletesTheFutureWithItsOutcome() {
		CompletableFuture<@Nullable Object> future = bind("stageFallback").callAsync(this.client, new Object[] { "a" },
				() -> CompletableFuture.failedFuture(new IOException("down")), identity(), this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isNotDone();
		this.client.fallbackStage.complete("late fallback");
		assertThat(future).isNotDone();
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("late fallback");
	}

	@Test
	void theFallbacksValueIsAdaptedByToStage() {
		List<@Nullable Object> adapted = new ArrayList<>();
		CompletableFuture<@Nullable Object> future = bind("withFallback").callAsync(this.client, new Object[] { "a" },
				() -> CompletableFuture.failedFuture(new IOException("down")), (value) -> {
					adapted.add(value);
					return CompletableFuture.completedFuture("adapted");
				}, this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("adapted");
		assertThat(adapted).singleElement()
			.satisfies((value) -> assertThat(((CompletableFuture<?>) value).getNow(null)).isEqualTo("fallback a after down"));
	}

	@Test
	void aFailureNoOverloadTakesFailsAsItself() {
		IllegalStateException failure = new IllegalStateException("not io");
		CompletableFuture<@Nullable Object> future = bind("withFallback").callAsync(this.client, new Object[] { "a" },
				() -> CompletableFuture.failedFuture(failure), identity(), this.scheduler);
		this.scheduler.runAll();
		assertThat(failureOf(future)).isSameAs(failure);
	}

	@Test
	void cancellingCancelsTheRetryAndTheFallbacksStage() {
		CompletableFuture<@Nullable Object> future = bind("stageFallback").callAsync(this.client, new Object[] { "a" },
				() -> CompletableFuture.failedFuture(new IOException("down")), identity(), this.scheduler);
		this.scheduler.runAll();
		future.cancel(true);
		assertThat(this.client.fallbackStage).isCancelled();
	}

	@Test
	void cancellingWhileRetryingCancelsTheDelay() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<@Nullable Object> future = bind("withFallback").callAsync(this.client, new Object[] { "a" },
				() -> {
					calls.incrementAndGet();
					return CompletableFuture.failedFuture(new IOException("down"));
				}, identity(), this.scheduler);
		future.cancel(true);
		assertThat(this.scheduler.queued().get(0).isCancelled()).isTrue();
		this.scheduler.runAll();
		assertThat(calls).hasValue(1);
	}

	@Test
	void beginUsesTheConditionsOverTheArguments() {
		RetryExecution execution = bind("pending").begin(new Object[] { "PENDING" });
		execution.attemptStarting();
		assertThat(execution.returned("PENDING").kind()).isEqualTo(RetryVerdict.Kind.RETRY);
		execution.attemptStarting();
		assertThat(execution.returned("DONE")).isEqualTo(RetryVerdict.returning("DONE"));
	}

	@Test
	void fallbackCallsTheOverloadOrRethrows() throws Throwable {
		RetryableMethod method = bind("withFallback");
		assertThat(method.hasFallback()).isTrue();
		assertThat(bind("plain").hasFallback()).isFalse();
		assertThat(((CompletableFuture<?>) method.fallback(this.client, new Object[] { "b" }, new IOException("x")))
			.getNow(null)).isEqualTo("fallback b after x");
		IllegalStateException other = new IllegalStateException("other");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> method.fallback(this.client, new Object[] { "b" }, other))
			.isSameAs(other);
		OutOfMemoryError error = new OutOfMemoryError("never to a fallback");
		assertThatExceptionOfType(OutOfMemoryError.class)
			.isThrownBy(() -> method.fallback(this.client, new Object[] { "b" }, error))
			.isSameAs(error);
	}

	private RetryableMethod bind(String name) {
		Method method = ReflectionUtils.findMethod(Client.class, name, String.class);
		RetryableMethod bound = new RetryableBinder(this.registry, null).bind(method, Client.class,
				ReturnKind.of(method, Retryable.class), ProposedSettings.NONE);
		assertThat(bound).isNotNull();
		return bound;
	}

	private static Function<@Nullable Object, CompletionStage<?>> identity() {
		return (value) -> (CompletionStage<?>) value;
	}

	private static Throwable failureOf(CompletableFuture<?> future) {
		assertThat(future).isCompletedExceptionally();
		return catchThrowableOfType(ExecutionException.class, future::get).getCause();
	}

	private static java.time.Duration ms(long millis) {
		return java.time.Duration.ofMillis(millis);
	}

	static class Client {

		final CompletableFuture<String> fallbackStage = new CompletableFuture<>();

		@Retryable(name = "partner", retryIf = "#exception.message != 'fatal'")
		public CompletableFuture<String> plain(String id) {
			throw new UnsupportedOperationException("attempts are supplied by the test");
		}

		@Retryable(name = "partner", retryIfResult = "#result == #p0")
		public CompletableFuture<String> pending(String id) {
			throw new UnsupportedOperationException();
		}

		@Retryable(name = "partner", retryOn = IOException.class, fallbackMethod = "recover")
		public CompletableFuture<String> withFallback(String id) {
			throw new UnsupportedOperationException();
		}

		@Retryable(name = "partner", fallbackMethod = "recoverLater")
		public CompletableFuture<String> stageFallback(String id) {
			throw new UnsupportedOperationException();
		}

		public CompletableFuture<String> recover(String id, IOException ex) {
			return CompletableFuture.completedFuture("fallback " + id + " after " + ex.getMessage());
		}

		public CompletableFuture<String> recover(String id, FileNotFoundException ex) {
			return CompletableFuture.completedFuture("missing " + id + " after " + ex.getMessage());
		}

		public CompletableFuture<String> recoverLater(String id, Exception ex) {
			return this.fallbackStage;
		}

	}

}
