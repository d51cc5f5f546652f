package dev.resilience.pool;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.pool.ConnectionPoolListener.CheckoutOutcome;
import dev.resilience.pool.ConnectionPoolListener.OperationOutcome;

import static dev.resilience.pool.ConnectionPoolAsyncTests.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The corners of {@link DeadlinePool} and {@link DeadlineLease} that the main tests pass by: a
 * deadline that fires early by the pool's clock or while a connection is on its way, a connection
 * offered at the very deadline, a closed pool or a shut-down scheduler or borrower, and nesting.
 * The pool's clock and the scheduler's may be two {@link ManualTicker}s here, so that the order of
 * the deadline and a hand-out can be chosen; otherwise as in {@link ConnectionPoolAsyncTests}.
 */
class DeadlinePoolEdgeTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final CountingFactory factory = new CountingFactory();

	private final ManualTicker ticker = new ManualTicker(Duration.ofSeconds(5).toNanos());

	private final ManualTicker schedulerTicker = new ManualTicker(Duration.ofSeconds(50).toNanos());

	private final ManualScheduler scheduler = new ManualScheduler(this.schedulerTicker);

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final List<ConnectionPool<?>> pools = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.pools.forEach(ConnectionPool::close);
	}

	@Test
	void aDeadlineEarlyByThePoolsClockWaitsForTheRest() {
		DeadlinePool<Integer> pool = pool(1);
		hold(pool);
		CompletableFuture<ConnectionLease<Integer>> second = pool.checkoutAsync(TIMEOUT);
		this.ticker.advance(Duration.ofSeconds(4));
		this.scheduler.advance(TIMEOUT);
		assertThat(second).isNotDone();
		assertThat(this.scheduler.delays()).last().isEqualTo(Duration.ofSeconds(6));
		assertThat(this.scheduler.pending()).hasSize(2);
		this.ticker.advance(Duration.ofSeconds(6));
		this.scheduler.advance(Duration.ofSeconds(6));
		assertThat(failure(second, CheckoutTimeoutException.class).getElapsed()).isEqualTo(TIMEOUT);
	}

	@Test
	void aDeadlineThatComesBetweenHandOutAndDeliveryGivesTheConnectionBackAtOnce() {
		DeadlinePool<Integer> pool = pool(1);
		ConnectionLease<Integer> first = hold(pool);
		CompletableFuture<ConnectionLease<Integer>> second = pool.checkoutAsync(TIMEOUT);
		// The scheduler's clock passes the deadline without running it; the pool's clock does not,
		// so the connection given back is handed out, and its delivery is due after the deadline.
		this.schedulerTicker.advance(Duration.ofSeconds(20));
		this.events.clear();
		assertThat(first.release(null)).isTrue();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 0, 0));
		this.ticker.advance(TIMEOUT);
		assertThat(this.scheduler.runNext()).isTrue();
		// The deadline ran first: the connection went back unused.
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.events).containsExactly("operation SUCCESS", "checkout TIMEOUT");
		this.scheduler.runDue();
		assertThat(failure(second, CheckoutTimeoutException.class).getElapsed()).isEqualTo(TIMEOUT);
		assertThat(this.events).containsExactly("operation SUCCESS", "checkout TIMEOUT");
		assertThat(this.scheduler.pending()).isEmpty();
	}

	@Test
	void aConnectionOfferedAtTheVeryDeadlineStaysIdleAndTheCheckoutTimesOut() {
		DeadlinePool<Integer> pool = pool(1);
		ConnectionLease<Integer> first = hold(pool);
		CompletableFuture<ConnectionLease<Integer>> second = pool.checkoutAsync(TIMEOUT);
		this.ticker.advance(TIMEOUT);
		this.events.clear();
		first.release(null);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.events).containsExactly("operation SUCCESS", "checkout TIMEOUT");
		// Only the failure of the checkout is left to run: its deadline is cancelled.
		assertThat(this.scheduler.pending()).hasSize(1);
		this.scheduler.runDue();
		assertThat(failure(second, CheckoutTimeoutException.class).getElapsed()).isEqualTo(TIMEOUT);
		assertThat(this.scheduler.pending()).isEmpty();
	}

	@Test
	void cancellingACheckoutHandedOutButNotDeliveredCancelsItsDeadlineAndGivesTheConnectionBack() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 0, 0));
		assertThat(checkout.cancel(false)).isTrue();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		// The delivery is left, which finds the checkout over; not the deadline.
		assertThat(this.scheduler.pending()).hasSize(1);
		this.scheduler.runDue();
		assertThat(this.scheduler.pending()).isEmpty();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.factory.destroyed).hasValue(0);
	}

	@Test
	void cancellingWhileTheStageRunsCancelsTheDeadline() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT, (connection) -> work);
		this.scheduler.runDue();
		assertThat(this.scheduler.pending()).hasSize(1);
		result.cancel(true);
		assertThat(work).isCancelled();
		assertThat(this.scheduler.pending()).isEmpty();
		await().untilAsserted(() -> assertThat(this.factory.destroyed).hasValue(1));
		// Commons Pool made the replacement as it invalidated, before the stage let go.
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.factory.created).hasValue(2);
	}

	@Test
	void aCallCancelledWhileItsCallbackRunsCancelsTheStageTheCallbackReturns() {
		DeadlinePool<Integer> pool = pool(1);
		AtomicReference<CompletableFuture<String>> result = new AtomicReference<>();
		CompletableFuture<String> work = new CompletableFuture<>();
		result.set(pool.withConnectionAsync(TIMEOUT, (connection) -> {
			result.get().cancel(true);
			return work;
		}));
		this.scheduler.runDue();
		assertThat(result.get()).isCancelled();
		assertThat(work).isCancelled();
		await().untilAsserted(() -> assertThat(this.factory.destroyed).hasValue(1));
	}

	@Test
	void cancellingANestedCallCancelsItsStage() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> inner = new CompletableFuture<>();
		AtomicReference<CompletableFuture<String>> nested = new AtomicReference<>();
		CompletableFuture<String> outer = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			nested.set(pool.withConnectionAsync(TIMEOUT, (same) -> inner));
			return CompletableFuture.completedFuture("outer");
		});
		this.scheduler.runDue();
		assertThat(outer).isCompletedWithValue("outer");
		assertThat(nested.get()).isNotDone();
		nested.get().cancel(true);
		assertThat(inner).isCancelled();
	}

	@Test
	void aStageThatCannotBeCancelledPassesItsOutcomeOnAndIsWaitedForPastACancellation() {
		DeadlinePool<Integer> pool = pool(2);
		CompletableFuture<String> firstWork = new CompletableFuture<>();
		CompletableFuture<String> first = pool.withConnectionAsync(TIMEOUT, (connection) -> uncancellable(firstWork));
		CompletableFuture<String> secondWork = new CompletableFuture<>();
		CompletableFuture<String> second = pool.withConnectionAsync(TIMEOUT,
				(connection) -> uncancellable(secondWork));
		this.scheduler.runDue();
		firstWork.complete("done");
		this.scheduler.runDue();
		assertThat(first).isCompletedWithValue("done");
		second.cancel(true);
		assertThat(secondWork).isNotDone();
		assertThat(pool.getStats().abandoned()).isOne();
		secondWork.complete("late");
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).containsExactly(2));
		assertThat(pool.getStats().abandoned()).isZero();
	}

	/** A stage of the work whose {@code toCompletableFuture} is not supported, as the interface allows. */
	@SuppressWarnings("unchecked")
	private static <R> CompletionStage<R> uncancellable(CompletableFuture<R> work) {
		return DelegatingProxy.of(CompletionStage.class, (method, args) -> {
			if (method.getName().equals("toCompletableFuture")) {
				throw new UnsupportedOperationException("not a future");
			}
			return DelegatingProxy.invoke(method, work.minimalCompletionStage(), args);
		});
	}

	@Test
	void aClosedPoolFailsACallAtOnceOnTheCallersThread() {
		DeadlinePool<Integer> pool = pool(1);
		pool.close();
		CompletableFuture<Object> result = pool.withConnectionAsync(TIMEOUT,
				(connection) -> CompletableFuture.completedFuture(connection));
		assertThat(failure(result, IllegalStateException.class)).hasMessage("Pool 'p' is closed");
		assertThat(failure(pool.checkoutAsync(TIMEOUT), IllegalStateException.class))
			.hasMessage("Pool 'p' is closed");
		assertThat(this.scheduler.pending()).isEmpty();
	}

	@Test
	void aCheckoutWhoseDeadlineCannotBeTimedFailsAndLeavesTheQueue() {
		DeadlinePool<Integer> pool = pool(1);
		this.scheduler.shutdown();
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		assertThat(failure(checkout, IllegalStateException.class))
			.hasMessageStartingWith("Pool 'p' cannot time its deadline: its scheduler ")
			.hasMessageEndingWith(" is shut down")
			.hasCauseInstanceOf(RejectedExecutionException.class);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 0, 0, 0));
	}

	@Test
	void aSignalTheBorrowerRefusedDoesNotKeepLaterCheckoutsFromBeingServed() {
		AtomicInteger refusals = new AtomicInteger(1);
		ExecutorService borrower = new DirectExecutor() {

			@Override
			public void execute(Runnable task) {
				if (refusals.getAndDecrement() > 0) {
					throw new RejectedExecutionException("busy");
				}
				task.run();
			}

		};
		DeadlinePool<Integer> pool = pool(2, this.factory, borrower, ManualScheduler.direct(),
				WorkerThreads.create("p", 2));
		CompletableFuture<ConnectionLease<Integer>> first = pool.checkoutAsync(TIMEOUT);
		assertThat(pool.getStats().pending()).isOne();
		CompletableFuture<ConnectionLease<Integer>> second = pool.checkoutAsync(TIMEOUT);
		this.scheduler.runDue();
		assertThat(first).isCompleted();
		assertThat(second).isCompleted();
		// both made at once, for the two checkouts waiting, and handed out in either order
		assertThat(List.of(first.join().connection(), second.join().connection())).containsExactlyInAnyOrder(1, 2);
	}

	@Test
	void anInterruptedExceptionOfTheFactoryFailsOneCheckoutAndTheNextAreStillServed() {
		// Thrown by the factory itself (a connect that was interrupted elsewhere): nobody interrupted
		// the borrowing thread, and the pool is not closing.
		InterruptedException interrupted = new InterruptedException("connect interrupted");
		AtomicInteger creates = new AtomicInteger();
		ConnectionFactory<Integer> connections = () -> {
			if (creates.incrementAndGet() == 1) {
				throw interrupted;
			}
			return creates.get();
		};
		DeadlinePool<Integer> pool = pool(2, connections, ManualScheduler.direct(), ManualScheduler.direct(),
				WorkerThreads.create("p", 2));
		CompletableFuture<ConnectionLease<Integer>> first = pool.checkoutAsync(TIMEOUT);
		// The borrowing "thread" is this one: it was not interrupted, and is not now.
		assertThat(Thread.interrupted()).isFalse();
		this.scheduler.runDue();
		assertThat(failure(first, InterruptedException.class)).isSameAs(interrupted);
		CompletableFuture<ConnectionLease<Integer>> second = pool.checkoutAsync(TIMEOUT);
		CompletableFuture<ConnectionLease<Integer>> third = pool.checkoutAsync(TIMEOUT);
		this.scheduler.runDue();
		assertThat(second).isCompleted();
		assertThat(third).isCompleted();
		assertThat(second.join().connection()).isEqualTo(2);
		assertThat(third.join().connection()).isEqualTo(3);
		// The failed creation took no place: both are out, none waits.
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(2, 2, 0, 0, 0));
		assertThat(second.join().release(null)).isTrue();
		assertThat(third.join().release(null)).isTrue();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(2, 0, 2, 0, 0));
		assertThat(creates).hasValue(3);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "checkout ACQUIRED", "operation SUCCESS",
				"operation SUCCESS");
	}

	@Test
	void aConnectionBeingMadeAsThePoolClosesIsInterruptedAndItsCheckoutToldThePoolIsClosed() throws Exception {
		CountDownLatch making = new CountDownLatch(1);
		AtomicInteger creates = new AtomicInteger();
		ConnectionFactory<Integer> connections = () -> {
			creates.incrementAndGet();
			making.countDown();
			Thread.sleep(TIMEOUT.toMillis());
			return 1;
		};
		// Connections made on a creating thread of the pool's, which closing interrupts.
		DeadlinePool<Integer> pool = pool(1, connections, new ParkingThread("p-borrower"), ManualScheduler.direct(),
				WorkerThreads.create("p", 1));
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		assertThat(making.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		pool.close();
		// Told by closing, or by the creating thread it interrupted, whichever is first.
		await().until(() -> {
			this.scheduler.runDue();
			return checkout.isDone();
		});
		assertThat(failure(checkout, IllegalStateException.class)).hasMessage("Pool 'p' is closed");
		assertThat(creates).hasValue(1);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 0, 0, 0));
	}

	@Test
	void aCheckoutQueuedWhileTheLastPlaceIsBeingMadeDoesNotWaitForThatCreation() throws Exception {
		CountDownLatch creating = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		this.factory.onCreate(() -> {
			creating.countDown();
			awaitQuietly(finish);
		});
		// A borrowing thread of its own: the creation's end signals inside Commons Pool's creation.
		ParkingThread borrower = new ParkingThread("p-borrower");
		DeadlinePool<Integer> pool = pool(1, this.factory, borrower, ManualScheduler.direct(),
				WorkerThreads.create("p", 1));
		try {
			CompletableFuture<Integer> blocking = CompletableFuture
				.supplyAsync(() -> pool.withConnection(TIMEOUT, (Integer connection) -> connection));
			assertThat(creating.await(10, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
			// The borrowing thread is done with it at once (tasks run in order): the pool is full
			// with the creation under way, so Commons Pool, which would wait for that creation to
			// end, is not asked.
			borrower.submit(() -> {
			}).get(10, TimeUnit.SECONDS);
			assertThat(checkout).isNotDone();
			assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 0, 1, 0));
			finish.countDown();
			assertThat(blocking.get(10, TimeUnit.SECONDS)).isEqualTo(1);
			await().until(() -> {
				this.scheduler.runDue();
				return checkout.isDone();
			});
			assertThat(checkout.join().connection()).isEqualTo(1);
			assertThat(this.factory.created).hasValue(1);
		}
		finally {
			finish.countDown();
		}
	}

	@Test
	void aCreationThatFailsLetsAWaitingCheckoutMakeItsOwn() throws Exception {
		CountDownLatch creating = new CountDownLatch(1);
		CountDownLatch fail = new CountDownLatch(1);
		AtomicBoolean first = new AtomicBoolean(true);
		this.factory.onCreate(() -> {
			if (first.getAndSet(false)) {
				creating.countDown();
				awaitQuietly(fail);
				throw new IllegalStateException("cannot connect");
			}
		});
		// A borrowing thread of its own: Commons Pool makes it wait for the failing creation to end.
		ParkingThread borrower = new ParkingThread("p-borrower");
		DeadlinePool<Integer> pool = pool(1, this.factory, borrower, ManualScheduler.direct(),
				WorkerThreads.create("p", 1));
		AtomicReference<Throwable> blockingFailure = new AtomicReference<>();
		Thread blocking = new Thread(() -> {
			try {
				pool.withConnection(TIMEOUT, (connection) -> connection);
			}
			catch (Throwable ex) {
				blockingFailure.set(ex);
			}
		});
		blocking.start();
		assertThat(creating.await(10, TimeUnit.SECONDS)).isTrue();
		// The pool is full with the creation under way: the checkout waits.
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		assertThat(pool.getStats().pending()).isOne();
		// The borrowing thread found no room for it (tasks run in order): only the failure can serve it.
		borrower.submit(() -> {
		}).get(10, TimeUnit.SECONDS);
		assertThat(checkout).isNotDone();
		fail.countDown();
		blocking.join(10_000);
		assertThat(blocking.isAlive()).isFalse();
		assertThat(blockingFailure.get()).isInstanceOf(IllegalStateException.class).hasMessage("cannot connect");
		await().until(() -> {
			this.scheduler.runDue();
			return checkout.isDone();
		});
		assertThat(checkout.join().connection()).isEqualTo(1);
		assertThat(this.factory.created).hasValue(1);
	}

	@Test
	void aCallerThatSleptForTheOutcomeGetsIt() {
		DeadlinePool<Integer> pool = pool(1);
		Thread caller = Thread.currentThread();
		String value = pool.withConnection(TIMEOUT, (connection) -> {
			// Past the caller's busy wait: it parks until the deadline, and this wakes it.
			while (caller.getState() != Thread.State.TIMED_WAITING) {
				Thread.onSpinWait();
			}
			return "got " + connection;
		});
		assertThat(value).isEqualTo("got 1");
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation SUCCESS");
	}

	@Test
	void aBlockingCallerWhoseConnectionCameAtTheVeryDeadlineTimesOutAndGivesItBack() {
		DeadlinePool<Integer> pool = pool(1);
		// Making the connection takes the whole timeout by the pool's clock.
		this.factory.onCreate(() -> this.ticker.advance(TIMEOUT));
		AtomicInteger ran = new AtomicInteger();
		assertThatExceptionOfType(CheckoutTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(TIMEOUT, (connection) -> ran.incrementAndGet()))
			.satisfies((ex) -> assertThat(ex.getElapsed()).isEqualTo(TIMEOUT));
		assertThat(ran).hasValue(0);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.events).containsExactly("checkout TIMEOUT");
	}

	@Test
	void leasesNestedInEachOtherRestoreTheOuterConnection() throws Exception {
		DeadlinePool<Integer> pool = pool(2);
		ConnectionLease<Integer> outer = hold(pool);
		ConnectionLease<Integer> inner = hold(pool);
		List<Integer> seen = new CopyOnWriteArrayList<>();
		outer.callWithCurrent(() -> {
			seen.add(pool.current());
			seen.add(inner.callWithCurrent(pool::current));
			seen.add(pool.current());
			return null;
		});
		assertThat(seen).containsExactly(1, 2, 1);
		assertThatIllegalStateException().isThrownBy(pool::current);
	}

	@Test
	void aLeaseNeverHandedOutCannotBeEndedAndAnEndedOneTakesNoConnection() {
		DeadlinePool<Integer> pool = pool(1);
		DeadlineLease<Integer> lease = new DeadlineLease<>(pool, TIMEOUT, this.ticker.read(),
				ContextSnapshotFactory.builder().build().captureAll());
		assertThat(lease.release(null)).isFalse();
		assertThat(lease.invalidate()).isFalse();
		assertThatIllegalStateException().isThrownBy(lease::connection).withMessage("No connection was handed out yet");
		lease.fail(new IllegalStateException("first"));
		lease.fail(new IllegalStateException("second"));
		assertThat(lease.isWaiting()).isFalse();
		assertThat(lease.grant(new Handle<>(7, this.factory))).isFalse();
		this.scheduler.runDue();
		assertThat(failure(lease.checkout, IllegalStateException.class)).hasMessage("first");
	}

	@Test
	void aLeaseEndedAfterThePoolClosedClosesItsConnection() {
		DeadlinePool<Integer> pool = pool(2);
		ConnectionLease<Integer> released = hold(pool);
		ConnectionLease<Integer> invalidated = hold(pool);
		pool.close();
		assertThat(released.release(null)).isTrue();
		assertThat(invalidated.invalidate()).isTrue();
		assertThat(this.factory.destroyedIds).containsExactlyInAnyOrder(1, 2);
	}

	@Test
	void aLeaseThatExpiredAndIsLetGoAfterThePoolClosedIsClosed() {
		DeadlinePool<Integer> pool = pool(1);
		ConnectionLease<Integer> lease = hold(pool, TIMEOUT);
		this.ticker.advance(TIMEOUT);
		this.scheduler.advance(Duration.ofSeconds(20));
		assertThat(pool.getStats().abandoned()).isOne();
		pool.close();
		assertThat(lease.release(null)).isFalse();
		assertThat(pool.getStats().abandoned()).isZero();
		// Its replacement, if made before the pool closed, is closed too.
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).contains(1));
	}

	@Test
	void aConnectionInvalidatedByItsHolderMakesRoomForAWaitingCheckout() throws Exception {
		// A borrowing thread of its own: the replacement is made on the replacing thread, whose
		// signal must not borrow inside Commons Pool's creation.
		ParkingThread borrower = new ParkingThread("p-borrower");
		DeadlinePool<Integer> pool = pool(1, this.factory, borrower, ManualScheduler.direct(),
				WorkerThreads.create("p", 1));
		ConnectionLease<Integer> first = hold(pool);
		CompletableFuture<ConnectionLease<Integer>> second = pool.checkoutAsync(TIMEOUT);
		// The borrowing thread found no room for it (tasks run in order): only the invalidation can serve it.
		borrower.submit(() -> {
		}).get(10, TimeUnit.SECONDS);
		assertThat(second).isNotDone();
		first.invalidate();
		// The invalidation runs on the pool's replacing thread, which then signals.
		await().until(() -> {
			this.scheduler.runDue();
			return second.isDone();
		});
		assertThat(second.join().connection()).isEqualTo(2);
		assertThat(this.factory.destroyedIds).containsExactly(1);
	}

	@Test
	void closingShutsDownTheExecutorsGivenToThePool() {
		ExecutorService workers = WorkerThreads.create("p", 1);
		ManualScheduler borrower = ManualScheduler.direct();
		ParkingThread returner = new ParkingThread("p-returner");
		DeadlinePool<Integer> pool = pool(1, this.factory, borrower, returner, workers);
		pool.close();
		assertThat(workers.isShutdown()).isTrue();
		assertThat(borrower.isShutdown()).isTrue();
		assertThat(returner.isShutdown()).isTrue();
		assertThat(this.scheduler.isShutdown()).isFalse();
	}

	@Test
	void theCommonsPoolConfigurationHasNoJmxNoFairLockAndAShortWaitForRoom() {
		ConnectionPoolSettings settings = ConnectionPoolSettings.builder().maxSize(3).minIdle(1).build();
		var config = DeadlinePool.<Integer>config(settings);
		assertThat(config.getJmxEnabled()).isFalse();
		assertThat(config.getFairness()).isFalse();
		assertThat(config.getMaxTotal()).isEqualTo(3);
		assertThat(config.getMinIdle()).isOne();
		assertThat(config.getBlockWhenExhausted()).isTrue();
		// Commons Pool's own top-up waits for room this long; unbounded (its default), it spins
		// while another creation may fill the pool.
		assertThat(config.getMaxWaitDuration()).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void aBuiltPoolRunsACallWithinItsOwnTimeoutOnTheSchedulerItWasGiven() {
		ConnectionPoolSettings settings = ConnectionPoolSettings.builder().maxSize(1)
			.timeout(Duration.ofSeconds(3))
			.build();
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("built", (ConnectionFactory<Integer>) this.factory)
			.settings(settings)
			.ticker(this.ticker)
			.scheduler(this.scheduler)
			.build());
		CompletableFuture<Integer> result = pool
			.withConnectionAsync((connection) -> CompletableFuture.completedFuture(connection + 40));
		// The borrowing and returning threads are the pool's own: the scheduler runs what they hand it.
		await().until(() -> {
			this.scheduler.runDue();
			return result.isDone();
		});
		assertThat(result.join()).isEqualTo(41);
		assertThat(this.scheduler.delays()).first().isEqualTo(Duration.ofSeconds(3));
	}

	/** Checks out a connection for a minute, longer than the deadlines of the checkouts tested. */
	private ConnectionLease<Integer> hold(DeadlinePool<Integer> pool) {
		return hold(pool, Duration.ofMinutes(1));
	}

	/** Checks out a connection and delivers it. */
	private ConnectionLease<Integer> hold(DeadlinePool<Integer> pool, Duration timeout) {
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(timeout);
		// At once when the borrowing executor runs on this thread; else once its thread handed it out.
		await().until(() -> {
			this.scheduler.runDue();
			return checkout.isDone();
		});
		return checkout.join();
	}

	private DeadlinePool<Integer> pool(int maxSize) {
		return pool(maxSize, this.factory, ManualScheduler.direct(), ManualScheduler.direct(),
				WorkerThreads.create("p", maxSize));
	}

	private DeadlinePool<Integer> pool(int maxSize, ConnectionFactory<Integer> connections, ExecutorService borrower,
			ExecutorService returner, ExecutorService workers) {
		ConnectionPoolListener listener = new ConnectionPoolListener() {

			@Override
			public void onCheckout(String pool, CheckoutOutcome outcome, Duration waited) {
				DeadlinePoolEdgeTests.this.events.add("checkout " + outcome);
			}

			@Override
			public void onOperation(String pool, OperationOutcome outcome, Duration duration) {
				DeadlinePoolEdgeTests.this.events.add("operation " + outcome);
			}

		};
		return track(new DeadlinePool<>("p", connections, ConnectionPoolSettings.builder().maxSize(maxSize).build(),
				this.ticker, List.of(listener), ContextSnapshotFactory.builder().build(), workers, this.scheduler,
				borrower, returner, creators(borrower, maxSize)));
	}

	/**
	 * Connections made on the borrowing thread itself when it runs on the caller's, so that the
	 * exact tests see them made before the checkout returns; else on creating threads.
	 */
	private static ExecutorService creators(ExecutorService borrower, int maxSize) {
		return (borrower instanceof ManualScheduler || borrower instanceof DirectExecutor) ? ManualScheduler.direct()
				: CreatingThreads.threads("p", maxSize);
	}

	private <P extends ConnectionPool<?>> P track(P pool) {
		this.pools.add(pool);
		return pool;
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** An executor that runs each task on the calling thread. */
	private abstract static class DirectExecutor extends AbstractExecutorService {

		private volatile boolean shutdown;

		@Override
		public void shutdown() {
			this.shutdown = true;
		}

		@Override
		public List<Runnable> shutdownNow() {
			this.shutdown = true;
			return List.of();
		}

		@Override
		public boolean isShutdown() {
			return this.shutdown;
		}

		@Override
		public boolean isTerminated() {
			return this.shutdown;
		}

		@Override
		public boolean awaitTermination(long timeout, TimeUnit unit) {
			return this.shutdown;
		}

	}

}
