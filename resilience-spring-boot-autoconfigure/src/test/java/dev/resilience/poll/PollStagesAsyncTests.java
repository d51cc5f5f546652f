package dev.resilience.poll;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;

import static dev.resilience.poll.PollerTests.ms;
import static dev.resilience.poll.PollerTests.unmet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link Poller#awaitAsync(Supplier, ScheduledExecutorService)}: attempts that return stages,
 * judged by the step of {@link Poller#pollOnce(PollState)}, delays scheduled, none slept.
 */
class PollStagesAsyncTests {

	private final ManualTicker ticker = new ManualTicker(4_000_000_000L);

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final List<PollHistory<?>> ended = new ArrayList<>();

	private final AtomicInteger calls = new AtomicInteger();

	@Test
	void returnsAtOnceAndEndsFulfilledAsAwaitDoes() {
		CompletableFuture<String> future = poller().build().awaitAsync(stages("PENDING", "PENDING", "DONE"), this.scheduler);
		assertThat(future).isNotDone();
		assertThat(this.calls).hasValue(1);
		assertThat(this.scheduler.delays()).containsExactly(ms(10));
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("DONE");
		assertThat(this.scheduler.delays()).containsExactly(ms(10), ms(20));
		assertThat(this.ended).hasSize(1);
		assertThat(new ArrayList<Object>(this.ended.get(0).attempts())).containsExactly(unmet(1, 0, "PENDING"), unmet(2, 10, "PENDING"),
				new PollAttempt<>(3, ms(20), true, "DONE", null));
		assertThat(this.ended.get(0).totalDelay()).isEqualTo(ms(30));
	}

	@Test
	void exhaustedFailsWithTheExactMessageAndHistory() {
		CompletableFuture<String> future = poller().maxAttempts(3).build().awaitAsync(stages("PENDING"), this.scheduler);
		this.scheduler.runAll();
		PollExhaustedException exhausted = (PollExhaustedException) failureOf(future);
		assertThat(exhausted).hasMessage("Tried 3 times over 30ms, but condition was never met");
		assertThat(exhausted.getTimeout()).isNull();
		assertThat(exhausted.getHistory().attempts()).extracting(PollAttempt::number).containsExactly(1, 2, 3);
		assertThat(this.ended).containsExactly(exhausted.getHistory());
	}

	@Test
	void theTimeoutEndsThePollBeforeAnAttemptThatWouldBeginPastIt() {
		CompletableFuture<String> future = poller().maxAttempts(PollSettings.UNLIMITED)
			.timeout(ms(25))
			.build()
			.awaitAsync(stages("PENDING"), this.scheduler);
		this.scheduler.runAll();
		PollExhaustedException exhausted = (PollExhaustedException) failureOf(future);
		assertThat(exhausted)
			.hasMessage("Tried 2 times over 10ms, but condition was never met within the timeout of 25ms");
		assertThat(exhausted.getTimeout()).isEqualTo(ms(25));
		assertThat(this.calls).hasValue(2);
	}

	@Test
	void theTimeoutCountsFromTheFirstAttemptsStart() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = poller().maxAttempts(PollSettings.UNLIMITED)
			.timeout(ms(25))
			.build()
			.awaitAsync(() -> {
				this.calls.incrementAndGet();
				return attempt;
			}, this.scheduler);
		this.ticker.advance(ms(20));
		attempt.complete("PENDING");
		this.scheduler.runAll();
		assertThat(failureOf(future)).hasMessage("Tried 1 time over 0ms, but condition was never met within the timeout of 25ms");
	}

	@Test
	void ignoredExceptionsAreUnmetAttempts() {
		IOException down = new IOException("down");
		AtomicInteger call = new AtomicInteger();
		CompletableFuture<String> future = poller().ignoreExceptions(true).build().awaitAsync(() -> {
			switch (call.incrementAndGet()) {
				case 1:
					throw new IllegalStateException("thrown");
				case 2:
					return CompletableFuture.failedFuture(down);
				default:
					return CompletableFuture.completedFuture("DONE");
			}
		}, this.scheduler);
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("DONE");
		List<PollAttempt<?>> attempts = new ArrayList<>(this.ended.get(0).attempts());
		assertThat(attempts.get(0).exception()).isInstanceOf(IllegalStateException.class).hasMessage("thrown");
		assertThat(attempts.get(1).exception()).isSameAs(down);
		assertThat(attempts.get(1).fulfilled()).isFalse();
	}

	@Test
	void anExceptionNotIgnoredEndsThePollAsItself() {
		IOException down = new IOException("down");
		CompletableFuture<String> future = poller().build().awaitAsync(() -> CompletableFuture.failedFuture(down),
				this.scheduler);
		assertThat(failureOf(future)).isSameAs(down);
		assertThat(this.scheduler.delays()).isEmpty();
		assertThat(this.ended).isEmpty();
	}

	@Test
	void anIgnoredInterruptionCancelsThePoll() {
		CompletableFuture<String> future = poller().ignoreExceptions(true)
			.build()
			.awaitAsync(() -> CompletableFuture.failedFuture(new InterruptedException()), this.scheduler);
		// A future completed with a CancellationException reads as cancelled; get() throws it as it
		// is up to JDK 22, and from JDK 23 a new CancellationException ("get") caused by it.
		assertThat(future).isCancelled();
		CancellationException thrown = catchThrowableOfType(CancellationException.class, future::get);
		assertThat((thrown.getCause() instanceof CancellationException stored) ? stored : thrown)
			.hasMessage("Polling was interrupted after 1 attempt")
			.hasCauseInstanceOf(InterruptedException.class);
	}

	@Test
	void anErrorIsNeverIgnored() {
		OutOfMemoryError error = new OutOfMemoryError();
		CompletableFuture<String> future = poller().ignoreExceptions(true)
			.build()
			.awaitAsync(() -> CompletableFuture.failedFuture(error), this.scheduler);
		assertThat(failureOf(future)).isSameAs(error);
	}

	@Test
	void cancelWhileWaitingCancelsTheDelayAndNoFurtherAttemptRuns() {
		CompletableFuture<String> future = poller().build().awaitAsync(stages("PENDING"), this.scheduler);
		future.cancel(true);
		assertThat(this.scheduler.queued()).singleElement().satisfies((task) -> assertThat(task.isCancelled()).isTrue());
		this.scheduler.runAll();
		assertThat(this.calls).hasValue(1);
		assertThat(this.ended).isEmpty();
	}

	@Test
	void cancelDuringAnAttemptCancelsItsStage() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = poller().build().awaitAsync(() -> attempt, this.scheduler);
		future.cancel(true);
		assertThat(attempt).isCancelled();
		this.scheduler.runAll();
		assertThat(this.ended).isEmpty();
	}

	@Test
	void aStageCompletedLaterIsJudgedOnTheScheduler() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = poller().build().awaitAsync(() -> attempt, this.scheduler);
		attempt.complete("DONE");
		assertThat(future).isNotDone();
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("DONE");
	}

	@Test
	void anAttemptStillRunningAtTheTimeoutIsCancelledAndThePollEndsThen() {
		CompletableFuture<String> hanging = new CompletableFuture<>();
		long start = this.ticker.read();
		CompletableFuture<String> future = poller().maxAttempts(PollSettings.UNLIMITED)
			.timeout(ms(25))
			.build()
			.awaitAsync(() -> (this.calls.getAndIncrement() == 0) ? CompletableFuture.completedFuture("PENDING")
					: hanging, this.scheduler);
		this.scheduler.advance(ms(24));
		assertThat(this.calls).hasValue(2);
		assertThat(future).isNotDone();
		assertThat(hanging).isNotCancelled();
		this.scheduler.advance(ms(1));
		PollExhaustedException exhausted = (PollExhaustedException) failureOf(future);
		assertThat(this.ticker.read() - start).isEqualTo(ms(25).toNanos());
		assertThat(exhausted)
			.hasMessage("Tried 2 times over 10ms, but condition was never met within the timeout of 25ms");
		assertThat(exhausted.getTimeout()).isEqualTo(ms(25));
		assertThat(exhausted.getCause()).isInstanceOf(TimeoutException.class)
			.hasMessage("Attempt 2 was still running at the timeout of 25ms");
		assertThat(hanging).isCancelled();
		assertThat(this.ended).containsExactly(exhausted.getHistory());
		assertThat(exhausted.getHistory().attempts().get(1).fulfilled()).isFalse();
		this.scheduler.runAll();
		assertThat(this.calls).hasValue(2);
	}

	@Test
	void aFirstAttemptThatNeverCompletesEndsThePollAtTheTimeout() {
		CompletableFuture<String> hanging = new CompletableFuture<>();
		CompletableFuture<String> future = poller().timeout(ms(40)).build().awaitAsync(() -> hanging, this.scheduler);
		this.scheduler.runAll();
		assertThat(failureOf(future))
			.hasMessage("Tried 1 time over 0ms, but condition was never met within the timeout of 40ms");
		assertThat(hanging).isCancelled();
	}

	@Test
	void anAttemptEndingBeforeTheTimeoutCancelsItsDeadline() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = poller().timeout(ms(40)).build().awaitAsync(() -> attempt, this.scheduler);
		assertThat(this.scheduler.pending()).hasSize(1);
		attempt.complete("DONE");
		this.scheduler.runDue();
		assertThat(future).isCompletedWithValue("DONE");
		assertThat(this.scheduler.pending()).isEmpty();
	}

	@Test
	void anOutcomeArrivingAfterTheDeadlineChangesNothing() {
		CompletableFuture<String> deaf = new CompletableFuture<>() {

			@Override
			public boolean cancel(boolean mayInterruptIfRunning) {
				return false; // as a stage that cannot stop its work
			}

		};
		CompletableFuture<String> future = poller().timeout(ms(40)).build().awaitAsync(() -> deaf, this.scheduler);
		this.scheduler.runAll();
		deaf.complete("DONE");
		this.scheduler.runAll();
		assertThat(failureOf(future)).isInstanceOf(PollExhaustedException.class);
		assertThat(this.ended).hasSize(1);
	}

	@Test
	void anOutcomeJudgedBeforeTheDeadlineWins() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = poller().timeout(ms(40)).build().awaitAsync(() -> attempt, this.scheduler);
		this.ticker.advance(ms(39));
		attempt.complete("DONE");
		this.scheduler.advance(ms(5));
		assertThat(future).isCompletedWithValue("DONE");
		assertThat(this.ended).hasSize(1);
	}

	@Test
	void noTimeoutNoDeadline() {
		CompletableFuture<String> attempt = new CompletableFuture<>();
		CompletableFuture<String> future = poller().build().awaitAsync(() -> attempt, this.scheduler);
		assertThat(this.scheduler.pending()).isEmpty();
		attempt.complete("DONE");
		this.scheduler.runAll();
		assertThat(future).isCompletedWithValue("DONE");
	}

	private Supplier<CompletionStage<String>> stages(String... values) {
		return () -> {
			int call = this.calls.getAndIncrement();
			return CompletableFuture.completedFuture(values[Math.min(call, values.length - 1)]);
		};
	}

	private Poller.Builder<String> poller() {
		return Poller.<String>builder(() -> {
			throw new AssertionError("stages are polled, not the supplier");
		}, "DONE"::equals).ticker(this.ticker).sleeper((nanos) -> {
			throw new AssertionError("never sleeps");
		}).listener((name, history) -> this.ended.add(history));
	}

	private static Throwable failureOf(CompletableFuture<?> future) {
		assertThat(future).isCompletedExceptionally();
		return catchThrowableOfType(ExecutionException.class, future::get).getCause();
	}


}
