package dev.resilience.poll;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.retry.Backoff;

import static dev.resilience.poll.PollerTests.ms;
import static dev.resilience.poll.PollerTests.unmet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@link Poller#pollOnce(PollState)} and {@link Poller#awaitAsync(ScheduledExecutorService)}: one
 * attempt at a time, and attempts scheduled on a scheduler, reaching what {@link Poller#await()}
 * reaches.
 */
class PollOnceAndAsyncTests {

	private final ManualTicker ticker = new ManualTicker(7_000_000_000L);

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final List<PollHistory<?>> ended = new ArrayList<>();

	@Test
	void eachAttemptReturnsANewStateWithTheNextDelay() {
		Poller<String> poller = poller(sequence("PENDING", "PENDING", "DONE"), 5).build();
		PollState<String> initial = poller.initialState();
		assertThat(initial.getAttemptCount()).isZero();
		assertThat(initial.getNextDelay()).hasValue(Duration.ZERO);
		assertThat(initial.isDone()).isFalse();
		assertThat(initial.getValue()).isNull();

		PollState<String> first = poller.pollOnce(initial);
		assertThat(first.isFulfilled()).isFalse();
		assertThat(first.isExhausted()).isFalse();
		assertThat(first.getValue()).isEqualTo("PENDING");
		assertThat(first.getNextDelay()).hasValue(ms(10));
		assertThat(first.getAttempts()).containsExactly(unmet(1, 0, "PENDING"));

		PollState<String> second = poller.pollOnce(first);
		assertThat(second.getNextDelay()).hasValue(ms(20));
		assertThat(second.getTotalDelay()).isEqualTo(ms(10));
		PollState<String> third = poller.pollOnce(second);

		assertThat(third.isFulfilled()).isTrue();
		assertThat(third.isDone()).isTrue();
		assertThat(third.isExhausted()).isFalse();
		assertThat(third.getValue()).isEqualTo("DONE");
		assertThat(third.getNextDelay()).isEmpty();
		assertThat(third.getAttemptCount()).isEqualTo(3);
		assertThat(third.getTotalDelay()).isEqualTo(ms(30));
		// States are immutable: the earlier ones still say what they said.
		assertThat(first.getAttempts()).hasSize(1);
		assertThat(initial.getAttempts()).isEmpty();
		assertThat(this.ended).containsExactly(third.getHistory());
	}

	@Test
	void aStateWhoseAttemptsAreUsedUpIsExhausted() {
		Poller<String> poller = poller(() -> null, 2).build();
		PollState<String> last = poller.pollOnce(poller.pollOnce(poller.initialState()));

		assertThat(last.isExhausted()).isTrue();
		assertThat(last.isDone()).isTrue();
		assertThat(last.isTimedOut()).isFalse();
		assertThat(last.getNextDelay()).isEmpty();
		assertThat(last.toString()).isEqualTo("PollState[attempts=2, fulfilled=false, nextDelay=null, totalDelay=PT0.01S]");
		assertThatIllegalStateException().isThrownBy(() -> poller.pollOnce(last))
			.withMessage("The poll is over; start a new one with initialState()");
	}

	@Test
	void aStateEndedByTheTimeoutSaysSo() {
		Poller<String> poller = poller(() -> null, PollSettings.UNLIMITED).timeout(ms(25)).build();
		PollState<String> state = poller.pollOnce(poller.initialState());
		this.ticker.advance(ms(10));
		state = poller.pollOnce(state);

		assertThat(state.isTimedOut()).isTrue();
		assertThat(state.isExhausted()).isTrue();
	}

	@Test
	void theTimeoutCountsFromTheFirstAttemptNotFromTheInitialState() {
		Poller<String> poller = poller(() -> null, PollSettings.UNLIMITED).timeout(ms(25)).build();
		PollState<String> initial = poller.initialState();
		this.ticker.advance(Duration.ofHours(1));

		PollState<String> first = poller.pollOnce(initial);
		this.ticker.advance(ms(10));
		PollState<String> second = poller.pollOnce(first);

		assertThat(first.isDone()).isFalse();
		// The third attempt would begin at 30 ms.
		assertThat(second.isTimedOut()).isTrue();
	}

	@Test
	void pollOnceDrivenByASchedulerReachesWhatAwaitReaches() {
		PollExhaustedException awaited = catchThrowableOfType(PollExhaustedException.class,
				poller(() -> null, 5).sleeper(this.ticker.sleeper()).build()::await);

		Poller<String> poller = poller(() -> null, 5).build();
		List<PollState<String>> states = new ArrayList<>();
		scheduleAttempt(poller, poller.initialState(), states);
		this.scheduler.runAll();

		PollState<String> last = states.get(states.size() - 1);
		assertThat(last.isExhausted()).isTrue();
		assertThat(last.getHistory()).isEqualTo(awaited.getHistory());
		assertThat(this.scheduler.delays()).containsExactly(Duration.ZERO, ms(10), ms(20), ms(30), ms(40));
	}

	private void scheduleAttempt(Poller<String> poller, PollState<String> state, List<PollState<String>> states) {
		this.scheduler.schedule(() -> {
			PollState<String> next = poller.pollOnce(state);
			states.add(next);
			next.getNextDelay().ifPresent((delay) -> scheduleAttempt(poller, next, states));
		}, state.getNextDelay().orElseThrow().toNanos(), TimeUnit.NANOSECONDS);
	}

	@Test
	void awaitAsyncReachesTheValueAndHistoryOfAwait() throws Exception {
		String awaited = poller(sequence("A", "B", "DONE"), 5).sleeper(this.ticker.sleeper()).build().await();
		PollHistory<?> awaitedHistory = this.ended.get(0);

		CompletableFuture<String> future = poller(sequence("A", "B", "DONE"), 5).build().awaitAsync(this.scheduler);
		assertThat(future).isNotDone();
		this.scheduler.runAll();

		assertThat(future.get()).isEqualTo(awaited).isEqualTo("DONE");
		assertThat(this.ended.get(1)).isEqualTo(awaitedHistory);
		assertThat(this.scheduler.delays()).containsExactly(Duration.ZERO, ms(10), ms(20));
	}

	@Test
	void awaitAsyncFailsWithTheExhaustedHistoryOfAwait() {
		PollExhaustedException awaited = catchThrowableOfType(PollExhaustedException.class,
				poller(() -> null, PollSettings.UNLIMITED).timeout(ms(70)).sleeper(this.ticker.sleeper()).build()::await);

		CompletableFuture<String> future = poller(() -> null, PollSettings.UNLIMITED).timeout(ms(70)).build()
			.awaitAsync(this.scheduler);
		this.scheduler.runAll();

		PollExhaustedException async = (PollExhaustedException) catchThrowableOfType(ExecutionException.class, future::get)
			.getCause();
		assertThat(async.getHistory()).isEqualTo(awaited.getHistory());
		assertThat(async).hasMessage(awaited.getMessage())
			.hasMessage("Tried 4 times over 60ms, but condition was never met within the timeout of 70ms");
	}

	@Test
	void cancellingAwaitAsyncStopsFurtherAttempts() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> future = poller(() -> {
			calls.incrementAndGet();
			return null;
		}, 5).build().awaitAsync(this.scheduler);
		this.scheduler.runAll();
		assertThat(calls).hasValue(5);

		calls.set(0);
		CompletableFuture<String> cancelled = poller(() -> {
			calls.incrementAndGet();
			return null;
		}, 5).build().awaitAsync(this.scheduler);
		this.scheduler.runNext();
		assertThat(calls).hasValue(1);

		assertThat(cancelled.cancel(false)).isTrue();
		assertThat(this.scheduler.queued()).singleElement().satisfies((task) -> assertThat(task.isCancelled()).isTrue());
		this.scheduler.runAll();
		assertThat(calls).hasValue(1);
		assertThat(future).isCompletedExceptionally();
	}

	@Test
	void cancellingDuringAnAttemptSchedulesNoFurtherAttempt() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<?>[] future = new CompletableFuture<?>[1];
		future[0] = poller(() -> {
			calls.incrementAndGet();
			future[0].cancel(false);
			return null;
		}, 5).build().awaitAsync(this.scheduler);

		this.scheduler.runNext();

		assertThat(this.scheduler.pending()).isEmpty();
		this.scheduler.runAll();
		assertThat(calls).hasValue(1);
	}

	@Test
	void cancellingCancelsTheNextAttemptEvenWhenTheFirstRanBeforeItWasScheduled() {
		this.scheduler.runDueTasksAtOnce();
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> future = poller(() -> {
			calls.incrementAndGet();
			return null;
		}, 5).build().awaitAsync(this.scheduler);
		assertThat(calls).hasValue(1);

		assertThat(future.cancel(false)).isTrue();

		assertThat(this.scheduler.queued()).singleElement().satisfies((task) -> assertThat(task.isCancelled()).isTrue());
	}

	@Test
	void anAttemptAlreadyScheduledWhenTheFutureIsCompletedIsNotMade() {
		AtomicInteger calls = new AtomicInteger();
		CompletableFuture<String> future = poller(() -> {
			calls.incrementAndGet();
			return null;
		}, 5).build().awaitAsync(this.scheduler);
		future.complete("elsewhere");

		this.scheduler.runAll();

		assertThat(calls).hasValue(0);
	}

	@Test
	void awaitAsyncFailsWithWhatAnAttemptThrows() {
		IllegalStateException failure = new IllegalStateException("partner down");
		CompletableFuture<String> future = poller(() -> {
			throw failure;
		}, 5).build().awaitAsync(this.scheduler);

		this.scheduler.runAll();

		assertThat(catchThrowableOfType(ExecutionException.class, future::get)).hasCause(failure);
	}

	@Test
	void awaitAsyncFailsWhenTheSchedulerIsShutDown() {
		this.scheduler.shutdown();

		CompletableFuture<String> future = poller(() -> "x", 5).build().awaitAsync(this.scheduler);

		assertThat(catchThrowableOfType(ExecutionException.class, future::get).getCause())
			.isInstanceOf(RejectedExecutionException.class)
			.hasMessage("Poll 'poller' stopped after 0 attempts: its scheduler refused the next one (shut down)");
	}

	@Test
	void awaitAsyncEndsWithWhatTheSupplierThrewAsAwaitDoes() {
		CompletionException thrown = new CompletionException("thrown as it is", new IOException("inside"));
		Poller<String> poller = poller(() -> {
			throw thrown;
		}, 5).build();

		AtomicReference<Throwable> failure = new AtomicReference<>();
		poller.awaitAsync(this.scheduler).whenComplete((value, ex) -> failure.set(ex));
		this.scheduler.runAll();

		// Seen raw: get() and join() would take a CompletionException off.
		assertThat(failure).hasValue(thrown);
		assertThat(catchThrowableOfType(CompletionException.class, poller::await)).isSameAs(thrown);
	}

	@Test
	void awaitAsyncOnARealSchedulerBlocksNoThreadBetweenAttempts() throws Exception {
		// One thread, two polls that each wait for the other to make attempts: had a poll blocked
		// the thread between its attempts, the other could not begin until it had given up.
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
		try {
			AtomicInteger first = new AtomicInteger();
			AtomicInteger second = new AtomicInteger();
			CompletableFuture<Integer> firstPoll = pollWaitingFor(first, second).awaitAsync(scheduler);
			CompletableFuture<Integer> secondPoll = pollWaitingFor(second, first).awaitAsync(scheduler);

			assertThat(firstPoll.get(30, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(2);
			assertThat(secondPoll.get(30, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(2);
			assertThat(scheduler.getQueue()).isEmpty();
		}
		finally {
			scheduler.shutdownNow();
		}
	}

	/** Counts its attempts, met once the other poll has made three. */
	private static Poller<Integer> pollWaitingFor(AtomicInteger attempts, AtomicInteger othersAttempts) {
		return Poller.builder(attempts::incrementAndGet, (count) -> othersAttempts.get() >= 3)
			.backoff(Backoff.FIXED)
			.delay(Duration.ofMillis(20))
			.maxAttempts(500)
			.build();
	}

	private Poller.Builder<String> poller(Supplier<String> supplier, int maxAttempts) {
		return Poller.builder(supplier, "DONE"::equals)
			.maxAttempts(maxAttempts)
			.ticker(this.ticker)
			.sleeper((nanos) -> {
				throw new AssertionError("pollOnce and awaitAsync never sleep");
			})
			.listener((name, history) -> this.ended.add(history));
	}

	private static Supplier<String> sequence(String... values) {
		AtomicInteger next = new AtomicInteger();
		return () -> values[Math.min(next.getAndIncrement(), values.length - 1)];
	}

}
