package dev.resilience.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ScheduledAttempts}' edges that the retry and poll tests reach only by chance: a call
 * cancelled while its next attempt is being scheduled, a scheduler that refuses the next attempt,
 * and a continuation that the executor refuses.
 */
class ScheduledAttemptsTests {

	private static final long SECOND = Duration.ofSeconds(1).toNanos();

	private final ManualScheduler scheduler = new ManualScheduler(new ManualTicker());

	@Test
	void aCallCancelledAsItsNextAttemptIsScheduledCancelsThatAttempt() {
		AtomicInteger attempts = new AtomicInteger();
		ScheduledAttempts<String> call = new ScheduledAttempts<>(this.scheduler) {

			@Override
			protected CompletionStage<?> invoke() {
				attempts.incrementAndGet();
				return CompletableFuture.completedFuture("not yet");
			}

			@Override
			protected void judge(@Nullable Object value, @Nullable Throwable failure) {
				// The caller cancels between this judgement and the scheduling of the next attempt.
				future().cancel(true);
				attemptAfter(SECOND);
			}

		};
		call.attemptNow();
		assertThat(call.future()).isCancelled();
		assertThat(this.scheduler.queued()).hasSize(1);
		assertThat(this.scheduler.pending()).isEmpty();
		this.scheduler.advance(Duration.ofSeconds(1));
		assertThat(attempts).hasValue(1);
	}

	@Test
	void aNextAttemptTheSchedulerRefusesFailsTheCallWithTheRefusal() {
		this.scheduler.shutdown();
		ScheduledAttempts<String> call = new ScheduledAttempts<>(this.scheduler) {

			@Override
			protected CompletionStage<?> invoke() {
				return CompletableFuture.completedFuture("not yet");
			}

			@Override
			protected void judge(@Nullable Object value, @Nullable Throwable failure) {
				attemptAfter(SECOND);
			}

		};
		call.attemptNow();
		assertThatThrownBy(call.future()::join).isInstanceOf(CompletionException.class)
			.cause()
			.isInstanceOf(RejectedExecutionException.class)
			.hasMessage("shut down");
	}

	@Test
	void aContinuationTheExecutorRefusesRunsOnTheCallingThread() {
		Executor refusing = (task) -> {
			throw new RejectedExecutionException("shut down");
		};
		AtomicReference<Thread> ranOn = new AtomicReference<>();
		ScheduledAttempts.execute(refusing, () -> ranOn.set(Thread.currentThread()));
		assertThat(ranOn).hasValue(Thread.currentThread());
	}

}
