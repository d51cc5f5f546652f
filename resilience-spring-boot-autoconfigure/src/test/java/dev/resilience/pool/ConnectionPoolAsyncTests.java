package dev.resilience.pool;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshotFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.TestCaller;
import dev.resilience.pool.ConnectionPoolListener.CheckoutOutcome;
import dev.resilience.pool.ConnectionPoolListener.OperationOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The asynchronous calls of docs/async-and-reactive.md on a {@link ConnectionPool}: a manual clock and
 * scheduler, and a borrowing "thread" that runs on the thread that signals it, so that every step
 * happens on the test's thread, in order, except the invalidations, which have their own thread.
 */
class ConnectionPoolAsyncTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final CountingFactory factory = new CountingFactory();

	// Not at zero, so that a reading added where it should be subtracted shows.
	private final ManualTicker ticker = new ManualTicker(Duration.ofSeconds(5).toNanos());

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final List<Duration> durations = new CopyOnWriteArrayList<>();

	private final List<ConnectionPool<?>> pools = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.pools.forEach(ConnectionPool::close);
	}

	@Test
	void theCallerReturnsBeforeTheCheckoutAndTheCallbackRunOnTheScheduler() {
		DeadlinePool<Integer> pool = pool(1);
		AtomicReference<Thread> ran = new AtomicReference<>();
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			ran.set(Thread.currentThread());
			return CompletableFuture.completedFuture("got " + connection);
		});
		assertThat(result).isNotDone();
		assertThat(ran).hasNullValue();
		this.scheduler.runDue();
		assertThat(result).isCompletedWithValue("got 1");
		assertThat(ran).hasValue(Thread.currentThread());
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation SUCCESS");
	}

	@Test
	void aSecondCallOnAPoolOfOneWaitsWithoutAThreadAndRunsWhenTheFirstStageCompletes() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> firstWork = new CompletableFuture<>();
		CompletableFuture<String> first = pool.withConnectionAsync(TIMEOUT, (connection) -> firstWork);
		this.scheduler.runDue();
		AtomicInteger secondRan = new AtomicInteger();
		CompletableFuture<Integer> second = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			secondRan.incrementAndGet();
			return CompletableFuture.completedFuture(connection);
		});
		// Everything ran on this thread, which is back: the second call waits in the queue only.
		this.scheduler.runDue();
		assertThat(second).isNotDone();
		assertThat(secondRan).hasValue(0);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 1, 0));
		this.ticker.advance(Duration.ofMillis(300));
		firstWork.complete("done");
		this.scheduler.runDue();
		assertThat(first).isCompletedWithValue("done");
		assertThat(second).isCompletedWithValue(1);
		assertThat(secondRan).hasValue(1);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.factory.created).hasValue(1);
		assertThat(this.durations).containsExactly(Duration.ZERO, Duration.ofMillis(300), Duration.ofMillis(300),
				Duration.ZERO);
	}

	@Test
	void noConnectionInTimeIsACheckoutTimeoutAndTheCallbackNeverRuns() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> firstWork = new CompletableFuture<>();
		pool.withConnectionAsync(TIMEOUT, (connection) -> firstWork);
		this.scheduler.runDue();
		this.events.clear();
		AtomicInteger ran = new AtomicInteger();
		CompletableFuture<Object> second = pool.withConnectionAsync(Duration.ofMillis(200), (connection) -> {
			ran.incrementAndGet();
			return CompletableFuture.completedFuture(connection);
		});
		this.scheduler.advance(Duration.ofMillis(199));
		assertThat(second).isNotDone();
		assertThat(pool).hasToString("DeadlinePool 'p' [waiting 1, queued 1 (1 waiting), waiting in Commons Pool 0, "
				+ "active 1, idle 0, abandoned 0, drain requests 0, being made 0 (and 0 outside Commons Pool)]");
		this.scheduler.advance(Duration.ofMillis(1));
		CheckoutTimeoutException timeout = failure(second, CheckoutTimeoutException.class);
		assertThat(timeout.getElapsed()).isEqualTo(Duration.ofMillis(200));
		assertThat(timeout.getTimeout()).isEqualTo(Duration.ofMillis(200));
		assertThat(timeout).hasMessageStartingWith("No connection of pool 'p' became free within 200ms");
		assertThat(pool.getStats().pending()).isZero();
		assertThat(pool.toString()).contains("[waiting 0, queued 0 (0 waiting), ");
		firstWork.complete("done");
		this.scheduler.runDue();
		assertThat(ran).hasValue(0);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.events).containsExactly("checkout TIMEOUT", "operation SUCCESS");
	}

	@Test
	void aCallbackThatFailsAfterTheDeadlinePassedEndsInAnOperationTimeout() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			// The callback is slow before it returns its stage: the deadline passes meanwhile.
			this.ticker.advance(TIMEOUT);
			this.scheduler.runDue();
			throw new IllegalStateException("late");
		});
		this.scheduler.runDue();
		assertThat(failure(result, OperationTimeoutException.class).getElapsed()).isEqualTo(TIMEOUT);
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
	}

	@Test
	void anErrorOfTheFactoryFailsOneCheckoutAndTheNextAreStillServed() {
		AtomicInteger creates = new AtomicInteger();
		DeadlinePool<Integer> pool = pool(1, () -> {
			if (creates.incrementAndGet() == 1) {
				throw new AssertionError("broken factory");
			}
			return creates.get();
		});
		CompletableFuture<Integer> first = pool.withConnectionAsync(TIMEOUT, CompletableFuture::completedFuture);
		this.scheduler.runDue();
		assertThat(failure(first, AssertionError.class)).hasMessage("broken factory");
		CompletableFuture<Integer> second = pool.withConnectionAsync(TIMEOUT, CompletableFuture::completedFuture);
		this.scheduler.runDue();
		assertThat(second).isCompletedWithValue(2);
	}

	@Test
	void aStagePendingAtTheDeadlineFailsWithOperationTimeoutIsCancelledAndItsConnectionInvalidated() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT, (connection) -> work);
		this.scheduler.runDue();
		this.scheduler.advance(TIMEOUT.minusNanos(1));
		assertThat(result).isNotDone();
		this.scheduler.advance(Duration.ofNanos(1));
		OperationTimeoutException timeout = failure(result, OperationTimeoutException.class);
		assertThat(timeout.getElapsed()).isEqualTo(TIMEOUT);
		assertThat(timeout).hasMessageContaining("pool 'p' did not finish within 10s");
		assertThat(work).isCancelled();
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).containsExactly(1));
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
		assertThat(this.factory.created).hasValue(2);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation TIMEOUT");
		// The replacement serves the next call.
		CompletableFuture<Integer> next = pool.withConnectionAsync(TIMEOUT, CompletableFuture::completedFuture);
		this.scheduler.runDue();
		assertThat(next).isCompletedWithValue(2);
	}

	@Test
	void theDeadlineCoversTheCheckoutAndTheStageTogether() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> firstWork = new CompletableFuture<>();
		pool.withConnectionAsync(TIMEOUT, (connection) -> firstWork);
		this.scheduler.runDue();
		CompletableFuture<String> secondWork = new CompletableFuture<>();
		CompletableFuture<String> second = pool.withConnectionAsync(Duration.ofSeconds(1), (connection) -> secondWork);
		this.scheduler.advance(Duration.ofMillis(700));
		firstWork.complete("done");
		this.scheduler.runDue();
		assertThat(second).isNotDone();
		this.scheduler.advance(Duration.ofMillis(299));
		assertThat(second).isNotDone();
		this.scheduler.advance(Duration.ofMillis(1));
		assertThat(failure(second, OperationTimeoutException.class).getElapsed()).isEqualTo(Duration.ofSeconds(1));
		assertThat(secondWork).isCancelled();
	}

	@Test
	void aConnectionHandedOutOnlyAtTheDeadlineIsACheckoutTimeoutAndGoesOnUnused() {
		this.factory.onCreate(() -> this.ticker.advance(Duration.ofSeconds(1)));
		DeadlinePool<Integer> pool = pool(1);
		AtomicInteger ran = new AtomicInteger();
		CompletableFuture<Object> result = pool.withConnectionAsync(Duration.ofSeconds(1), (connection) -> {
			ran.incrementAndGet();
			return CompletableFuture.completedFuture(connection);
		});
		this.scheduler.runDue();
		assertThat(failure(result, CheckoutTimeoutException.class).getElapsed()).isEqualTo(Duration.ofSeconds(1));
		assertThat(ran).hasValue(0);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
	}

	@Test
	void aCompletedStageGivesItsConnectionBackOnThePoolsThreadBeforeTheOutcomeIsPassedOn() {
		ManualScheduler returner = new ManualScheduler(new ManualTicker());
		DeadlinePool<Integer> pool = pool(1, this.factory, returner);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT, (connection) -> work);
		AtomicReference<ConnectionPoolStats> seenByCaller = statsWhenDone(pool, result);
		this.scheduler.runDue();
		work.complete("done");
		// The thread that completed the stage gave nothing back and passed nothing on.
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 0, 0));
		assertThat(result).isNotDone();
		assertThat(returner.pending()).hasSize(1);
		returner.runAll();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(result).isNotDone();
		this.scheduler.runDue();
		assertThat(result).isCompletedWithValue("done");
		assertThat(seenByCaller).hasValue(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(returner.pending()).isEmpty();
		assertThat(this.scheduler.pending()).isEmpty();
		assertThat(this.factory.destroyed).hasValue(0);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation SUCCESS");
	}

	@Test
	void aFailedStageGivesItsConnectionBackOnThePoolsThreadBeforeTheFailureIsPassedOn() {
		ManualScheduler returner = new ManualScheduler(new ManualTicker());
		DeadlinePool<Integer> pool = pool(1, this.factory, returner);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT, (connection) -> work);
		AtomicReference<ConnectionPoolStats> seenByCaller = statsWhenDone(pool, result);
		this.scheduler.runDue();
		IOException failure = new IOException("partner down");
		work.completeExceptionally(failure);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 0, 0));
		returner.runAll();
		assertThat(result).isNotDone();
		this.scheduler.runDue();
		assertThat(failure(result, IOException.class)).isSameAs(failure);
		assertThat(seenByCaller).hasValue(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(returner.pending()).isEmpty();
		assertThat(this.factory.destroyed).hasValue(0);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation ERROR");
	}

	@Test
	void aCallbackThatThrowsGivesItsConnectionBackOnThePoolsThreadBeforeTheFailureIsPassedOn() {
		ManualScheduler returner = new ManualScheduler(new ManualTicker());
		DeadlinePool<Integer> pool = pool(1, this.factory, returner);
		IOException failure = new IOException("cannot start");
		CompletableFuture<Object> result = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			throw failure;
		});
		AtomicReference<ConnectionPoolStats> seenByCaller = statsWhenDone(pool, result);
		this.scheduler.runDue();
		assertThat(result).isNotDone();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 0, 0));
		returner.runAll();
		this.scheduler.runDue();
		assertThat(failure(result, IOException.class)).isSameAs(failure);
		assertThat(seenByCaller).hasValue(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(returner.pending()).isEmpty();
	}

	@Test
	void cancellingAfterTheCheckoutGivesTheConnectionBackOnThePoolsThreadOnce() {
		ManualScheduler returner = new ManualScheduler(new ManualTicker());
		DeadlinePool<Integer> pool = pool(1, this.factory, returner);
		AtomicInteger ran = new AtomicInteger();
		CompletableFuture<Object> result = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			ran.incrementAndGet();
			return CompletableFuture.completedFuture(connection);
		});
		// Handed out, not yet delivered on the scheduler.
		assertThat(pool.getStats().active()).isOne();
		assertThat(result.cancel(true)).isTrue();
		assertThat(pool.getStats().active()).isOne();
		assertThat(returner.pending()).hasSize(1);
		returner.runAll();
		this.scheduler.runAll();
		assertThat(ran).hasValue(0);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(returner.pending()).isEmpty();
		assertThat(this.factory.destroyed).hasValue(0);
		assertThat(this.events).isEmpty();
	}

	@Test
	void aDeliveryThatComesAfterItsCheckoutWasCancelledAndTheConnectionClosedDoesNotCloseItAgain() {
		AtomicInteger invalid = new AtomicInteger();
		this.factory.validWhen((connection) -> connection != invalid.get());
		DeadlinePool<Integer> pool = track(new DeadlinePool<>("p", this.factory,
				ConnectionPoolSettings.builder().maxSize(1).validateOnCheckout(true).build(), this.ticker, List.of(),
				ContextSnapshotFactory.builder().build(), WorkerThreads.create("p", 1), this.scheduler,
				ManualScheduler.direct(), ManualScheduler.direct(), ManualScheduler.direct()));
		CompletableFuture<ConnectionLease<Integer>> first = pool.checkoutAsync(TIMEOUT);
		// Handed out, its delivery queued; cancelled, the connection goes back.
		first.cancel(false);
		// The next checkout finds it no longer valid: it is closed (on the replacing thread) and
		// another one made.
		invalid.set(1);
		CompletableFuture<ConnectionLease<Integer>> second = pool.checkoutAsync(TIMEOUT);
		await().until(() -> {
			this.scheduler.runDue();
			return second.isDone();
		});
		assertThat(this.factory.destroyedIds).containsExactly(1);
		assertThat(second.getNow(null).connection()).isEqualTo(2);
		assertThat(this.factory.destroyed).hasValue(1);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 0, 0));
	}

	@Test
	void aConnectionDeliveredAfterTheDeadlineNeverStartsTheWorkAndGoesBack() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> firstWork = new CompletableFuture<>();
		CompletableFuture<String> first = pool.withConnectionAsync(TIMEOUT, (connection) -> firstWork);
		this.scheduler.runDue();
		this.events.clear();
		this.durations.clear();
		AtomicInteger ran = new AtomicInteger();
		CompletableFuture<Object> second = pool.withConnectionAsync(Duration.ofSeconds(1), (connection) -> {
			ran.incrementAndGet();
			return CompletableFuture.completedFuture(connection);
		});
		this.scheduler.advance(Duration.ofMillis(999));
		// Given back and handed to the second call 1 ms before its deadline; the scheduler comes to
		// the delivery only once the deadline has passed, ahead of the deadline's own task.
		firstWork.complete("done");
		this.ticker.advance(Duration.ofMillis(1));
		// The delivery, then the first call's outcome; left is the failure of the second call, its
		// deadline's own task cancelled.
		this.scheduler.runNext();
		this.scheduler.runNext();
		assertThat(this.scheduler.pending()).hasSize(1);
		this.scheduler.runDue();
		assertThat(first).isCompletedWithValue("done");
		CheckoutTimeoutException timeout = failure(second, CheckoutTimeoutException.class);
		assertThat(timeout.getElapsed()).isEqualTo(Duration.ofSeconds(1));
		assertThat(ran).hasValue(0);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.factory.created).hasValue(1);
		assertThat(this.factory.destroyed).hasValue(0);
		assertThat(this.events).containsExactly("operation SUCCESS", "checkout TIMEOUT");
		assertThat(this.scheduler.pending()).isEmpty();
	}

	@Test
	void cancellingWhileWaitingLeavesTheQueueAndTheCallbackNeverRuns() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> firstWork = new CompletableFuture<>();
		pool.withConnectionAsync(TIMEOUT, (connection) -> firstWork);
		this.scheduler.runDue();
		AtomicInteger ran = new AtomicInteger();
		CompletableFuture<Object> second = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			ran.incrementAndGet();
			return CompletableFuture.completedFuture(connection);
		});
		assertThat(pool.getStats().pending()).isOne();
		assertThat(second.cancel(true)).isTrue();
		assertThat(pool.getStats().pending()).isZero();
		assertThat(this.scheduler.pending()).hasSize(1);
		firstWork.complete("done");
		this.scheduler.advance(TIMEOUT);
		assertThat(ran).hasValue(0);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.scheduler.pending()).isEmpty();
	}

	/**
	 * Cancelling a deadline's timer is the one step of ending a checkout that takes another
	 * thread's lock (the scheduler's queue), so it can fail, as on a thread that must not block
	 * under BlockHound. It comes after the checkout was counted out and the connection given back,
	 * so that its failure leaves no checkout counted as waiting and no connection out.
	 */
	@Test
	void aTimerThatFailsToCancelLeavesNoCheckoutWaitingAndNoConnectionOut() {
		DeadlinePool<Integer> pool = track(new DeadlinePool<>("p", this.factory,
				ConnectionPoolSettings.builder().maxSize(1).build(), this.ticker, List.of(),
				ContextSnapshotFactory.builder().build(), WorkerThreads.create("p", 1), failingCancels(this.scheduler),
				ManualScheduler.direct(), ManualScheduler.direct(), ManualScheduler.direct()));
		CompletableFuture<String> firstWork = new CompletableFuture<>();
		CompletableFuture<String> first = pool.withConnectionAsync(TIMEOUT, (connection) -> firstWork);
		this.scheduler.runDue();
		CompletableFuture<Object> second = pool.withConnectionAsync(TIMEOUT,
				(connection) -> CompletableFuture.completedFuture(connection));
		assertThat(pool.getStats().pending()).isOne();
		second.cancel(true);
		assertThat(pool.getStats().pending()).isZero();
		firstWork.complete("done");
		this.scheduler.runDue();
		assertThat(first).isCompletedWithValue("done");
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
	}

	/** The scheduler, but cancelling what it scheduled fails once the task is cancelled. */
	private static ScheduledExecutorService failingCancels(ScheduledExecutorService scheduler) {
		return DelegatingProxy.of(ScheduledExecutorService.class, (method, args) -> {
			Object result = DelegatingProxy.invoke(method, scheduler, args);
			if (result instanceof ScheduledFuture<?> future) {
				return DelegatingProxy.of(ScheduledFuture.class, (futureMethod, futureArgs) -> {
					Object outcome = DelegatingProxy.invoke(futureMethod, future, futureArgs);
					if (futureMethod.getName().equals("cancel")) {
						throw new IllegalStateException("The scheduler's queue could not be locked");
					}
					return outcome;
				});
			}
			return result;
		});
	}

	@Test
	void cancellingWhileTheStageRunsCancelsItAndInvalidatesItsConnection() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT, (connection) -> work);
		this.scheduler.runDue();
		assertThat(result.cancel(true)).isTrue();
		assertThat(work).isCancelled();
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).containsExactly(1));
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
		this.scheduler.advance(TIMEOUT);
		assertThat(this.events).containsExactly("checkout ACQUIRED");
		assertThat(this.scheduler.pending()).isEmpty();
	}

	@Test
	void cancellingAStageThatGoesOnFreesThePlaceButClosesTheConnectionOnlyOnceTheStageEnds() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> work = new CompletableFuture<>();
		// A minimal stage: cancelling the call cancels a copy of it, and the work goes on.
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT,
				(connection) -> work.minimalCompletionStage());
		this.scheduler.runDue();
		assertThat(result.cancel(true)).isTrue();
		assertThat(work).isNotDone();
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 1)));
		// Its place serves the next call with a replacement while the first work still holds its
		// connection.
		CompletableFuture<Integer> next = pool.withConnectionAsync(TIMEOUT, CompletableFuture::completedFuture);
		await().untilAsserted(() -> {
			this.scheduler.runDue();
			assertThat(next).isCompletedWithValue(2);
		});
		assertThat(this.factory.destroyed).hasValue(0);
		work.complete("late");
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).containsExactly(1));
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
		this.scheduler.advance(TIMEOUT);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "checkout ACQUIRED", "operation SUCCESS");
	}

	@Test
	void cancellingAfterTheCheckoutBeforeTheCallbackGivesTheConnectionBackUnused() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		// Handed out, not yet delivered on the scheduler.
		assertThat(pool.getStats().active()).isOne();
		checkout.cancel(false);
		this.scheduler.runDue();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.factory.destroyed).hasValue(0);
	}

	@Test
	void aCallbackThatThrowsFailsTheCallUnchangedAndGivesTheConnectionBack() {
		DeadlinePool<Integer> pool = pool(1);
		IOException failure = new IOException("cannot start");
		CompletableFuture<Object> result = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			throw failure;
		});
		this.scheduler.runDue();
		assertThat(failure(result, IOException.class)).isSameAs(failure);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation ERROR");
	}

	@Test
	void aFailedStageFailsTheCallUnchangedAndGivesTheConnectionBack() {
		DeadlinePool<Integer> pool = pool(1);
		IOException failure = new IOException("partner down");
		CompletableFuture<Object> work = new CompletableFuture<>();
		CompletableFuture<Object> result = pool.withConnectionAsync(TIMEOUT, (connection) -> work);
		this.scheduler.runDue();
		this.ticker.advance(Duration.ofMillis(40));
		work.completeExceptionally(failure);
		assertThat(result).isNotDone();
		this.scheduler.runDue();
		assertThat(failure(result, IOException.class)).isSameAs(failure);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation ERROR");
		assertThat(this.durations).containsExactly(Duration.ZERO, Duration.ofMillis(40));
		assertThat(this.factory.destroyed).hasValue(0);
	}

	@Test
	void aFactoryFailureFailsTheCallAndTheCallbackNeverRuns() {
		IOException failure = new IOException("cannot connect");
		DeadlinePool<Integer> pool = pool(1, () -> {
			throw failure;
		});
		AtomicInteger ran = new AtomicInteger();
		CompletableFuture<Object> result = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			ran.incrementAndGet();
			return CompletableFuture.completedFuture(connection);
		});
		this.scheduler.runDue();
		assertThat(failure(result, IOException.class)).isSameAs(failure);
		assertThat(ran).hasValue(0);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 0, 0, 0));
		assertThat(this.scheduler.pending()).isEmpty();
	}

	@Test
	void currentGivesTheConnectionDuringTheCallbackOnly() throws Exception {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<Integer> result = pool.withConnectionAsync(TIMEOUT,
				(connection) -> CompletableFuture.completedFuture(pool.current()));
		this.scheduler.runDue();
		assertThat(result).isCompletedWithValue(1);
		assertThatIllegalStateException().isThrownBy(pool::current);
	}

	@Test
	void theCallersContextIsRestoredDuringTheCallback() {
		ThreadLocal<@Nullable String> requestId = TestCaller.CURRENT;
		ContextRegistry registry = new ContextRegistry().registerThreadLocalAccessor(new TestCaller());
		DeadlinePool<Integer> pool = track(new DeadlinePool<>("p", this.factory,
				ConnectionPoolSettings.builder().maxSize(1).build(), this.ticker, List.of(),
				ContextSnapshotFactory.builder().contextRegistry(registry).build(), WorkerThreads.create("p", 1),
				this.scheduler, ManualScheduler.direct(), ManualScheduler.direct(), ManualScheduler.direct()));
		requestId.set("r-42");
		CompletableFuture<String> result;
		try {
			result = pool.withConnectionAsync(TIMEOUT, (connection) -> CompletableFuture.completedFuture(requestId.get()));
		}
		finally {
			requestId.remove();
		}
		this.scheduler.runDue();
		assertThat(result).isCompletedWithValue("r-42");
		assertThat(requestId.get()).isNull();
	}

	@Test
	void aNestedCallUsesTheConnectionAlreadyHeld() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<Integer> result = pool.withConnectionAsync(TIMEOUT,
				(outer) -> pool.withConnectionAsync(Duration.ofMillis(1), (inner) -> CompletableFuture.completedFuture(inner + 10)));
		this.scheduler.runDue();
		assertThat(result).isCompletedWithValue(11);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation SUCCESS");
	}

	@Test
	void blockingAndAsynchronousCallersShareTheConnections() throws Exception {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> work = new CompletableFuture<>();
		pool.withConnectionAsync(TIMEOUT, (connection) -> work);
		this.scheduler.runDue();
		// A blocking caller times out while the stage holds the only connection.
		assertThatExceptionOfType(CheckoutTimeoutException.class).isThrownBy(
				() -> pool.withConnection(Duration.ofNanos(1), (connection) -> connection));
		work.complete("done");
		this.scheduler.runDue();
		assertThat(pool.<Integer>withConnection(TIMEOUT, (connection) -> connection)).isEqualTo(1);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
	}

	@Test
	void closingFailsTheWaitingCallsAndRefusesNewOnes() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> work = new CompletableFuture<>();
		pool.withConnectionAsync(TIMEOUT, (connection) -> work);
		this.scheduler.runDue();
		CompletableFuture<Object> waiting = pool.withConnectionAsync(TIMEOUT, CompletableFuture::completedFuture);
		pool.close();
		this.scheduler.runDue();
		assertThat(failure(waiting, IllegalStateException.class)).hasMessage("Pool 'p' is closed");
		CompletableFuture<Object> after = pool.withConnectionAsync(TIMEOUT, CompletableFuture::completedFuture);
		assertThat(failure(after, IllegalStateException.class)).hasMessage("Pool 'p' is closed");
		assertThat(pool.getStats().pending()).isZero();
	}

	@Test
	void aTimeoutThatIsNotPositiveIsRejected() {
		DeadlinePool<Integer> pool = pool(1);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> pool.withConnectionAsync(Duration.ZERO, CompletableFuture::completedFuture))
			.withMessage("timeout must be positive but was 0ms");
		assertThatIllegalArgumentException().isThrownBy(() -> pool.checkoutAsync(Duration.ofMillis(-1)));
	}

	@Test
	void aLeaseEndsExactlyOnce() throws Exception {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		this.ticker.advance(Duration.ofMillis(250));
		this.scheduler.runDue();
		ConnectionLease<Integer> lease = checkout.getNow(null);
		assertThat(lease.connection()).isEqualTo(1);
		assertThat(lease.remaining()).isEqualTo(TIMEOUT.minusMillis(250));
		assertThat(lease.callWithCurrent(pool::current)).isEqualTo(1);
		assertThatIllegalStateException().isThrownBy(pool::current);
		assertThat(lease.release()).isTrue();
		assertThat(lease.release()).isFalse();
		assertThat(lease.invalidate()).isFalse();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.factory.destroyed).hasValue(0);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation SUCCESS");
		this.scheduler.advance(TIMEOUT);
		assertThat(lease.expiry()).isNotDone();
	}

	@Test
	void aLeaseInvalidatedByItsHolderIsClosedAndReplaced() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		this.scheduler.runDue();
		ConnectionLease<Integer> lease = checkout.getNow(null);
		assertThat(lease.invalidate()).isTrue();
		assertThat(lease.release()).isFalse();
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).containsExactly(1));
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
		assertThat(this.events).containsExactly("checkout ACQUIRED");
	}

	@Test
	void aLeaseHeldPastTheDeadlineExpiresAndItsConnectionIsClosedWhenTheHolderLetsGo() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		this.scheduler.runDue();
		ConnectionLease<Integer> lease = checkout.getNow(null);
		CompletableFuture<Void> expiry = lease.expiry();
		CompletableFuture<Void> cancelled = lease.expiry();
		cancelled.cancel(false);
		this.scheduler.advance(TIMEOUT);
		assertThat(failure(expiry, OperationTimeoutException.class).getElapsed()).isEqualTo(TIMEOUT);
		assertThat(lease.remaining()).isZero();
		// Its place is free and refilled; the connection stays open while the holder has it.
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 1)));
		assertThat(this.factory.destroyed).hasValue(0);
		assertThat(lease.release()).isFalse();
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).containsExactly(1));
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(lease.invalidate()).isFalse();
		assertThat(this.factory.destroyed).hasValue(1);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation TIMEOUT");
	}

	@Test
	void aListenerThatThrowsLeavesNoConnectionBorrowed() {
		DeadlinePool<Integer> pool = track(new DeadlinePool<>("p", this.factory,
				ConnectionPoolSettings.builder().maxSize(1).build(), this.ticker, List.of(new ConnectionPoolListener() {

					@Override
					public void onCheckout(String pool, CheckoutOutcome outcome, Duration waited) {
						throw new IllegalStateException("listener broken");
					}

					@Override
					public void onOperation(String pool, OperationOutcome outcome, Duration duration) {
						throw new IllegalStateException("listener broken");
					}

				}), ContextSnapshotFactory.builder().build(), WorkerThreads.create("p", 1), this.scheduler,
				ManualScheduler.direct(), ManualScheduler.direct(), ManualScheduler.direct()));
		CompletableFuture<Integer> ok = pool.withConnectionAsync(TIMEOUT, CompletableFuture::completedFuture);
		this.scheduler.runDue();
		assertThat(ok).isCompletedWithValue(1);
		CompletableFuture<String> hung = pool.withConnectionAsync(TIMEOUT, (connection) -> new CompletableFuture<>());
		this.scheduler.runDue();
		CompletableFuture<Object> late = pool.withConnectionAsync(Duration.ofSeconds(1), CompletableFuture::completedFuture);
		this.scheduler.advance(TIMEOUT);
		failure(late, CheckoutTimeoutException.class);
		failure(hung, OperationTimeoutException.class);
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
	}

	@Test
	void aPoolBuiltWithoutASchedulerUsesTheSharedDaemonScheduler() throws Exception {
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("b", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(1).build())
			.build());
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT,
				(connection) -> CompletableFuture.completedFuture(Thread.currentThread().getName() + " " + connection));
		assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("resilience-pool-scheduler 1");
		CompletableFuture<Object> hung = pool.withConnectionAsync(Duration.ofMillis(100),
				(connection) -> new CompletableFuture<>());
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> hung.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(OperationTimeoutException.class);
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
		assertThat(this.factory.destroyedIds).containsExactly(1);
	}

	private DeadlinePool<Integer> pool(int maxSize) {
		return pool(maxSize, this.factory);
	}

	private DeadlinePool<Integer> pool(int maxSize, ConnectionFactory<Integer> connections) {
		return pool(maxSize, connections, ManualScheduler.direct());
	}

	private DeadlinePool<Integer> pool(int maxSize, ConnectionFactory<Integer> connections, ExecutorService returner) {
		ConnectionPoolListener listener = new ConnectionPoolListener() {

			@Override
			public void onCheckout(String pool, CheckoutOutcome outcome, Duration waited) {
				ConnectionPoolAsyncTests.this.durations.add(waited);
				ConnectionPoolAsyncTests.this.events.add("checkout " + outcome);
			}

			@Override
			public void onOperation(String pool, OperationOutcome outcome, Duration duration) {
				ConnectionPoolAsyncTests.this.durations.add(duration);
				ConnectionPoolAsyncTests.this.events.add("operation " + outcome);
			}

		};
		return track(new DeadlinePool<>("p", connections, ConnectionPoolSettings.builder().maxSize(maxSize).build(),
				this.ticker, List.of(listener), ContextSnapshotFactory.builder().build(),
				WorkerThreads.create("p", maxSize), this.scheduler, ManualScheduler.direct(), returner, ManualScheduler.direct()));
	}

	/** What the pool held when the caller heard of the outcome. */
	private static AtomicReference<ConnectionPoolStats> statsWhenDone(ConnectionPool<?> pool,
			CompletableFuture<?> result) {
		AtomicReference<ConnectionPoolStats> seen = new AtomicReference<>();
		result.whenComplete((value, failure) -> seen.set(pool.getStats()));
		return seen;
	}

	private <P extends ConnectionPool<?>> P track(P pool) {
		this.pools.add(pool);
		return pool;
	}

	/** The exception a completed future failed with, unwrapped, checked to be of a type. */
	static <E extends Throwable> E failure(CompletableFuture<?> future, Class<E> type) {
		assertThat(future).isCompletedExceptionally();
		assertThat(future.isCancelled()).isFalse();
		try {
			future.getNow(null);
		}
		catch (CancellationException ex) {
			throw new AssertionError("cancelled", ex);
		}
		catch (java.util.concurrent.CompletionException ex) {
			assertThat(ex.getCause()).isInstanceOf(type);
			return type.cast(ex.getCause());
		}
		throw new AssertionError("not failed");
	}

}
