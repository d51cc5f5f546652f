package dev.resilience.pool;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshotFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.TestCaller;
import dev.resilience.Ticker;
import dev.resilience.pool.ConnectionPoolListener.CheckoutOutcome;
import dev.resilience.pool.ConnectionPoolListener.OperationOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/** The semantics of docs/pools.md, each on a real {@link ConnectionPool}. */
class ConnectionPoolTests {

	private static final Duration LONG = Duration.ofSeconds(30);

	/** A deadline for work that times out: ample for making the first connection on a busy machine. */
	private static final Duration SHORT = Duration.ofMillis(500);

	private final CountingFactory factory = new CountingFactory();

	// Not at zero, so that a reading added where it should be subtracted shows.
	private final ManualTicker ticker = new ManualTicker(Duration.ofSeconds(5).toNanos());

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final List<Duration> durations = new CopyOnWriteArrayList<>();

	private final ExecutorService callers = Executors.newCachedThreadPool();

	private final Hangs hangs = new Hangs();

	private final List<ConnectionPool<?>> pools = new CopyOnWriteArrayList<>();

	@AfterEach
	void release() throws InterruptedException {
		this.hangs.releaseAll();
		this.pools.forEach(ConnectionPool::close);
		this.callers.shutdownNow();
		assertThat(this.callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void withConnectionRunsTheWorkWithAConnectionAndReturnsIt() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		assertThat(call(pool, LONG, (connection) -> "got " + connection)).isEqualTo("got 1");
		assertThat(call(pool, LONG, (connection) -> "got " + connection)).isEqualTo("got 1");
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.factory.created).hasValue(1);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation SUCCESS", "checkout ACQUIRED",
				"operation SUCCESS");
	}

	@Test
	void workRunsOnAnotherThread() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		Thread caller = Thread.currentThread();
		assertThat(call(pool, LONG, (connection) -> Thread.currentThread())).isNotSameAs(caller);
	}

	@Test
	void anExceptionReachesTheCallerUnchangedAndTheConnectionGoesBack() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		IOException failure = new IOException("partner down");
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> pool.withConnection(LONG, (connection) -> {
			throw failure;
		})).isSameAs(failure);
		assertThat(pool.getStats().idle()).isOne();
		assertThat(call(pool, LONG, (connection) -> connection)).isEqualTo(1);
		assertThat(this.factory.destroyed).hasValue(0);
		assertThat(this.events).startsWith("checkout ACQUIRED", "operation ERROR");
	}

	@Test
	void aFactoryFailureReachesTheCallerAndTheWorkNeverRuns() {
		IOException failure = new IOException("cannot connect");
		ConnectionPool<Integer> pool = track(ConnectionPool.<Integer>builder("p", () -> {
			throw failure;
		}).build());
		AtomicBoolean ran = new AtomicBoolean();
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> pool.withConnection(LONG, (connection) -> {
			ran.set(true);
			return connection;
		})).isSameAs(failure);
		assertThat(ran).isFalse();
		assertThat(pool.getStats().active()).isZero();
	}

	@Test
	void checkoutTimesOutWhenNoConnectionBecomesFreeAndTheWorkNeverRuns() throws Exception {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		Hang hang = hold(pool);
		AtomicBoolean ran = new AtomicBoolean();
		CheckoutTimeoutException timeout = catchThrowableOfType(() -> pool.withConnection(Duration.ofMillis(200),
				(connection) -> ran.getAndSet(true)), CheckoutTimeoutException.class);
		assertThat(ran).isFalse();
		assertThat(timeout.getPool()).isEqualTo("p");
		assertThat(timeout.getTimeout()).isEqualTo(Duration.ofMillis(200));
		assertThat(timeout.getElapsed()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
		assertThat(timeout).hasMessageStartingWith("No connection of pool 'p' became free within 200ms");
		assertThat(this.events).containsSubsequence("checkout TIMEOUT");
		hang.release();
	}

	@Test
	void aConnectionAcquiredOnlyAtTheDeadlineIsACheckoutTimeoutAndGoesBackUnused() {
		this.factory.onCreate(() -> this.ticker.advance(Duration.ofSeconds(10)));
		ConnectionPool<Integer> pool = pool(1, this.ticker);
		AtomicBoolean ran = new AtomicBoolean();
		CheckoutTimeoutException timeout = catchThrowableOfType(
				() -> pool.withConnection(Duration.ofSeconds(10), (connection) -> ran.getAndSet(true)),
				CheckoutTimeoutException.class);
		assertThat(ran).isFalse();
		assertThat(timeout.getElapsed()).isEqualTo(Duration.ofSeconds(10));
		assertThat(pool.getStats().idle()).isOne();
		assertThat(this.factory.destroyed).hasValue(0);
	}

	@Test
	void theWorkGetsOnlyTheTimeTheCheckoutLeft() {
		// Checkout takes 9.9 s of a 10 s deadline on the manual clock; the hung work then gets 100 ms
		// of real time, not 10 s.
		this.factory.onCreate(() -> {
			if (this.factory.created.get() == 0) {
				this.ticker.advance(Duration.ofMillis(9_900));
			}
		});
		ConnectionPool<Integer> pool = pool(1, this.ticker);
		Hang hang = this.hangs.hang();
		long before = System.nanoTime();
		OperationTimeoutException timeout = catchThrowableOfType(
				() -> pool.withConnection(Duration.ofSeconds(10), (connection) -> hang.hang()),
				OperationTimeoutException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(5));
		assertThat(timeout.getElapsed()).isEqualTo(Duration.ofMillis(9_900));
		assertThat(timeout.getTimeout()).isEqualTo(Duration.ofSeconds(10));
		assertThat(timeout).hasMessageContaining("pool 'p' did not finish within 10s");
	}

	@Test
	void theCallerIsBackAtTheDeadlineAlthoughTheWorkIgnoresInterrupts() throws Exception {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		Hang hang = this.hangs.hang();
		assertThatExceptionOfType(OperationTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> hang.hang()))
			.satisfies((ex) -> assertThat(ex.getElapsed()).isGreaterThanOrEqualTo(SHORT));
		// The work still runs: it was interrupted, swallowed it, and holds its connection.
		await().untilAsserted(() -> assertThat(hang.interrupts).hasValue(1));
		assertThat(hang.left).hasValue(0);
		// Its place was freed and refilled with a replacement.
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 1)));
		assertThat(this.factory.created).hasValue(2);
		assertThat(this.factory.destroyed).hasValue(0);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation TIMEOUT");
	}

	@Test
	void theConnectionOfTimedOutWorkIsDestroyedOnceTheWorkLetsGoAndNeverHandedOutAgain() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		Hang hang = this.hangs.hang();
		// The work must have started by the deadline: work that never got a thread gives its
		// connection back to be closed at once. A worker took more than 500 ms to start on a
		// 2-core machine running two builds.
		assertThatExceptionOfType(OperationTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(Duration.ofSeconds(3), (connection) -> hang.hang()));
		assertThat(hang.entered.getCount()).as("the work started before its deadline").isZero();
		// Its place is free at once: a replacement serves the next call while the work still hangs.
		assertThat(call(pool, LONG, (connection) -> connection)).isEqualTo(2);
		assertThat(this.factory.destroyed).hasValue(0);
		hang.release();
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).containsExactly(1));
		assertThat(this.factory.destroyThreads).singleElement().asString().startsWith("resilience-pool-p-");
		await().untilAsserted(() -> assertThat(pool.getStats().abandoned()).isZero());
		assertThat(call(pool, LONG, (connection) -> connection)).isEqualTo(2);
		assertThat(this.factory.created).hasValue(2);
	}

	@Test
	void workThatHonoursInterruptsIsInterruptedAtTheDeadline() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
		assertThatExceptionOfType(OperationTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> {
				try {
					Thread.sleep(LONG.toMillis());
					return interrupted.complete(false);
				}
				catch (InterruptedException ex) {
					return interrupted.complete(true);
				}
			}));
		assertThat(interrupted).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		await().untilAsserted(() -> assertThat(this.factory.destroyed).hasValue(1));
	}

	@Test
	void workQueuedForAThreadPastTheDeadlineNeverRunsAndItsConnectionGoesBackUnused() throws Exception {
		// One worker thread, held by hung work of another pool sharing nothing but that thread.
		ExecutorService oneThread = oneThread("q");
		try {
			Hang hang = this.hangs.hang();
			oneThread.execute(hang::hang);
			assertThat(hang.entered.await(10, TimeUnit.SECONDS)).isTrue();
			DeadlinePool<Integer> pool = new DeadlinePool<>("q", this.factory, ConnectionPoolSettings.builder().build(),
					Ticker.system(), List.of(), ContextSnapshotFactory.builder().build(), oneThread);
			AtomicBoolean ran = new AtomicBoolean();
			assertThatExceptionOfType(OperationTimeoutException.class)
				.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> ran.getAndSet(true)));
			assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(8, 0, 1, 0, 0));
			hang.release();
			await().untilAsserted(() -> assertThat(((ThreadPoolExecutor) oneThread).getCompletedTaskCount()).isEqualTo(2));
			assertThat(ran).isFalse();
			assertThat(this.factory.destroyed).hasValue(0);
			// The call that never ran let go of the connection: closing the pool destroys it.
			pool.close();
			assertThat(this.factory.destroyedIds).containsExactly(1);
		}
		finally {
			oneThread.shutdownNow();
		}
	}

	@Test
	void theInterruptOfAbandonedWorkDoesNotReachTheNextWorkOnItsThread() throws Exception {
		ExecutorService oneThread = oneThread("u");
		try {
			DeadlinePool<Integer> pool = track(new DeadlinePool<>("u", this.factory,
					ConnectionPoolSettings.builder().build(), Ticker.system(), List.of(),
					ContextSnapshotFactory.builder().build(), oneThread));
			Hang hang = this.hangs.hang();
			AtomicReference<Thread> hungOn = new AtomicReference<>();
			assertThatExceptionOfType(OperationTimeoutException.class)
				.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> {
					hungOn.set(Thread.currentThread());
					return hang.hang();
				}));
			await().untilAsserted(() -> assertThat(hang.interrupts).hasValue(1));
			hang.release();
			await().untilAsserted(() -> assertThat(pool.getStats().abandoned()).isZero());
			assertThat(call(pool, LONG, (connection) -> Thread.currentThread().isInterrupted())).isEqualTo(false);
			assertThat(call(pool, LONG, (connection) -> Thread.currentThread())).isSameAs(hungOn.get());
		}
		finally {
			oneThread.shutdownNow();
		}
	}

	@Test
	void aConnectionFailingValidationIsDestroyedAndReplaced() {
		this.factory.validWhen((connection) -> connection != 1);
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(1).validateOnCheckout(true).build())
			.build());
		assertThat(call(pool, LONG, (connection) -> connection)).isEqualTo(2);
		assertThat(this.factory.destroyedIds).containsExactly(1);
		assertThat(call(pool, LONG, (connection) -> connection)).isEqualTo(2);
		assertThat(this.factory.validated).hasValue(3);
	}

	@Test
	void aValidationThatThrowsCountsAsFailed() {
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("p", new ConnectionFactory<Integer>() {

			private int next;

			@Override
			public Integer create() {
				return ++this.next;
			}

			@Override
			public boolean validate(Integer connection) {
				if (connection == 1) {
					throw new IllegalStateException("broken");
				}
				return true;
			}

		}).settings(ConnectionPoolSettings.builder().maxSize(1).validateOnCheckout(true).build()).build());
		assertThat(call(pool, LONG, (connection) -> connection)).isEqualTo(2);
	}

	@Test
	void connectionsAreNotValidatedUnlessAskedTo() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		pool.withConnection(LONG, (connection) -> connection);
		pool.withConnection(LONG, (connection) -> connection);
		assertThat(this.factory.validated).hasValue(0);
	}

	@Test
	void currentGivesTheConnectionInsideTheWorkOnly() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		assertThat(call(pool, LONG, (connection) -> pool.current())).isEqualTo(1);
		assertThatIllegalStateException().isThrownBy(pool::current)
			.withMessage("No connection of pool 'p' is held here; current() works inside a "
					+ "@WithConnection(pool = \"p\") method or a withConnection callback of this pool");
	}

	@Test
	void aNestedCallUsesTheConnectionAlreadyHeld() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		Thread[] threads = new Thread[2];
		int inner = pool.withConnection(LONG, (outer) -> {
			threads[0] = Thread.currentThread();
			return pool.withConnection(Duration.ofMillis(50), (connection) -> {
				threads[1] = Thread.currentThread();
				return connection + 10;
			});
		});
		assertThat(inner).isEqualTo(11);
		assertThat(threads[1]).isSameAs(threads[0]);
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation SUCCESS");
	}

	@Test
	void aNestedCallPassesItsExceptionOnUnchanged() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		IOException failure = new IOException("inner");
		assertThatExceptionOfType(IOException.class).isThrownBy(() -> pool.withConnection(LONG,
				(outer) -> pool.withConnection(LONG, (connection) -> {
					throw failure;
				})))
			.isSameAs(failure);
	}

	@Test
	void aPermitPoolBoundsConcurrentCalls() throws Exception {
		ConnectionPool<Object> pool = track(ConnectionPool.permits("permits")
			.settings(ConnectionPoolSettings.builder().maxSize(2).build())
			.build());
		Hang hang = this.hangs.hang(2);
		this.callers.submit(() -> pool.withConnection(LONG, (permit) -> hang.hang()));
		this.callers.submit(() -> pool.withConnection(LONG, (permit) -> hang.hang()));
		assertThat(hang.entered.await(10, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(CheckoutTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(Duration.ofMillis(100), (permit) -> permit));
		hang.release();
		assertThat(call(pool, LONG, (permit) -> permit == pool.current())).isEqualTo(true);
	}

	@Test
	void waitingCallersArePending() throws Exception {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		Hang hang = hold(pool);
		Future<Integer> waiting = this.callers.submit(() -> pool.withConnection(LONG, (connection) -> connection));
		await().untilAsserted(() -> assertThat(pool.getStats().pending()).isOne());
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 1, 0));
		hang.release();
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isOne();
	}

	@Test
	void anInterruptedCallerStopsWaitingForAConnection() throws Exception {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		Hang hang = hold(pool);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicBoolean flagSet = new AtomicBoolean();
		Thread caller = new Thread(() -> {
			try {
				pool.withConnection(LONG, (connection) -> connection);
			}
			catch (Throwable ex) {
				failure.set(ex);
				flagSet.set(Thread.currentThread().isInterrupted());
			}
		});
		caller.start();
		await().untilAsserted(() -> assertThat(pool.getStats().pending()).isOne());
		caller.interrupt();
		caller.join(10_000);
		assertThat(failure.get()).isInstanceOf(CancellationException.class)
			.hasMessage("Interrupted while waiting for pool 'p'");
		assertThat(flagSet).isTrue();
		hang.release();
	}

	@Test
	void anInterruptedCallerAbandonsRunningWork() throws Exception {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		Hang hang = this.hangs.hang();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicBoolean flagSet = new AtomicBoolean();
		Thread caller = new Thread(() -> {
			try {
				pool.withConnection(LONG, (connection) -> hang.hang());
			}
			catch (Throwable ex) {
				failure.set(ex);
				flagSet.set(Thread.currentThread().isInterrupted());
			}
		});
		caller.start();
		assertThat(hang.entered.await(10, TimeUnit.SECONDS)).isTrue();
		caller.interrupt();
		caller.join(10_000);
		assertThat(failure.get()).isInstanceOf(CancellationException.class);
		assertThat(flagSet).isTrue();
		assertThat(pool.getStats().abandoned()).isOne();
		assertThat(call(pool, LONG, (connection) -> connection)).isEqualTo(2);
	}

	@Test
	void theCallersContextTravelsToTheWorkerAndIsClearedAfter() {
		ThreadLocal<@Nullable String> requestId = TestCaller.CURRENT;
		ContextRegistry registry = new ContextRegistry().registerThreadLocalAccessor(new TestCaller());
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(1).build())
			.contextSnapshots(ContextSnapshotFactory.builder().contextRegistry(registry).build())
			.build());
		requestId.set("r-42");
		try {
			assertThat(call(pool, LONG, (connection) -> requestId.get())).isEqualTo("r-42");
		}
		finally {
			requestId.remove();
		}
		assertThat(call(pool, LONG, (connection) -> String.valueOf(requestId.get()))).isEqualTo("null");
	}

	@Test
	void aTimeoutThatIsNotPositiveIsRejected() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		assertThatIllegalArgumentException().isThrownBy(() -> pool.withConnection(Duration.ZERO, (c) -> c))
			.withMessage("timeout must be positive but was 0ms");
		assertThatIllegalArgumentException().isThrownBy(() -> pool.withConnection(Duration.ofMillis(-1), (c) -> c));
	}

	@Test
	void withoutATimeoutTheSettingsTimeoutApplies() {
		assertThat(pool(1, Ticker.system()).<Integer>withConnection((connection) -> connection)).isEqualTo(1);
		this.factory.onCreate(() -> this.ticker.advance(Duration.ofSeconds(3)));
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().timeout(Duration.ofSeconds(3)).build())
			.ticker(this.ticker)
			.build());
		assertThat(catchThrowableOfType(() -> pool.withConnection((connection) -> connection),
				CheckoutTimeoutException.class).getTimeout()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void minIdleConnectionsAreMadeAtOnceAndKeptUp() throws Exception {
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(4).minIdle(2).build())
			.build());
		assertThat(pool.getStats().idle()).isEqualTo(2);
		assertThat(this.factory.created).hasValue(2);
		pool.withConnection(LONG, (connection) -> pool.withConnection(LONG, (same) -> same));
		assertThat(pool.getStats().idle()).isEqualTo(2);
		assertThat(this.factory.created).hasValue(2);
	}

	@Test
	void maintenanceClosesIdleConnectionsPastMaxIdleTimeAndTopsUpMinIdle() throws Exception {
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(4).minIdle(2).maxIdleTime(Duration.ofMillis(20)).build())
			.build());
		Thread.sleep(100);
		((DeadlinePool<Integer>) pool).maintain();
		assertThat(this.factory.destroyedIds).containsExactlyInAnyOrder(1, 2);
		assertThat(this.factory.created).hasValue(4);
		assertThat(pool.getStats().idle()).isEqualTo(2);
	}

	@Test
	void aMinIdleConnectionThatCannotBeMadeStopsTheBuild() {
		assertThatIllegalStateException().isThrownBy(() -> ConnectionPool.<Integer>builder("p", () -> {
			throw new IOException("no route");
		}).settings(ConnectionPoolSettings.builder().minIdle(1).build()).build())
			.withMessage("Pool 'p' cannot create its 1 min-idle connections: no route");
	}

	@Test
	void idleConnectionsPastMaxIdleTimeAreDestroyed() throws Exception {
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxIdleTime(Duration.ofMillis(20)).build())
			.build());
		pool.withConnection(LONG, (connection) -> connection);
		Thread.sleep(100);
		((DeadlinePool<Integer>) pool).maintain();
		assertThat(this.factory.destroyedIds).containsExactly(1);
		assertThat(pool.getStats().idle()).isZero();
	}

	@Test
	void idleConnectionsAreKeptWithAnAbsurdMaxIdleTime() throws Exception {
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxIdleTime(Duration.ofSeconds(Long.MAX_VALUE)).build())
			.build());
		pool.withConnection(LONG, (connection) -> connection);
		((DeadlinePool<Integer>) pool).maintain();
		assertThat(pool.getStats().idle()).isOne();
		assertThat(this.factory.destroyedIds).isEmpty();
	}

	@Test
	void idleConnectionsAreKeptWithoutMaxIdleTime() throws Exception {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		pool.withConnection(LONG, (connection) -> connection);
		Thread.sleep(50);
		((DeadlinePool<Integer>) pool).maintain();
		assertThat(pool.getStats().idle()).isOne();
	}

	@Test
	void closingDestroysIdleConnectionsAndRefusesFurtherCalls() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		pool.withConnection(LONG, (connection) -> connection);
		pool.close();
		assertThat(this.factory.destroyedIds).containsExactly(1);
		assertThatIllegalStateException().isThrownBy(() -> pool.withConnection(LONG, (connection) -> connection))
			.withMessage("Pool 'p' is closed");
	}

	@Test
	void checkoutWaitsOnlyForTheTimeLeft() throws Exception {
		// Once armed, the first reading fixes the start and every later one is 9.9 s on, leaving
		// 100 ms to wait.
		AtomicBoolean armed = new AtomicBoolean();
		AtomicLong readings = new AtomicLong();
		Ticker jumping = () -> (armed.get() && readings.getAndIncrement() > 0) ? 10_900_000_000L : 1_000_000_000L;
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(1).build())
			.ticker(jumping)
			.build());
		Hang hang = hold(pool);
		armed.set(true);
		long before = System.nanoTime();
		CheckoutTimeoutException timeout = catchThrowableOfType(
				() -> pool.withConnection(Duration.ofSeconds(10), (connection) -> connection),
				CheckoutTimeoutException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(Duration.ofSeconds(5));
		assertThat(timeout.getElapsed()).isEqualTo(Duration.ofMillis(9_900));
		hang.release();
	}

	@Test
	void listenersAreToldHowLongCheckoutAndOperationTook() {
		this.factory.onCreate(() -> this.ticker.advance(Duration.ofMillis(30)));
		ConnectionPool<Integer> pool = pool(1, this.ticker);
		pool.withConnection(LONG, (connection) -> this.ticker.advance(Duration.ofMillis(250)));
		assertThat(this.durations).containsExactly(Duration.ofMillis(30), Duration.ofMillis(250));
	}

	@Test
	void theConnectionIsNotCurrentOnTheWorkerThreadAfterTheCall() throws Exception {
		ExecutorService oneThread = oneThread("r");
		DeadlinePool<Integer> pool = track(new DeadlinePool<>("r", this.factory, ConnectionPoolSettings.builder().build(),
				Ticker.system(), List.of(), ContextSnapshotFactory.builder().build(), oneThread));
		assertThat(call(pool, LONG, (connection) -> pool.current())).isEqualTo(1);
		Future<?> after = oneThread.submit(pool::current);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> after.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(IllegalStateException.class);
	}

	@Test
	void aPoolWhoseThreadsAreShutDownReturnsTheConnectionAndRefusesTheCall() {
		ExecutorService shutDown = oneThread("s");
		shutDown.shutdown();
		DeadlinePool<Integer> pool = track(new DeadlinePool<>("s", this.factory, ConnectionPoolSettings.builder().build(),
				Ticker.system(), List.of(), ContextSnapshotFactory.builder().build(), shutDown));
		assertThatIllegalStateException().isThrownBy(() -> pool.withConnection(LONG, (connection) -> connection))
			.withMessage("Pool 's' is closed");
		assertThat(pool.getStats().idle()).isOne();
	}

	@Test
	void aPoolThatCannotMakeItsMinIdleConnectionsShutsItsThreadsDown() {
		ExecutorService threads = oneThread("t");
		assertThatIllegalStateException().isThrownBy(() -> new DeadlinePool<Integer>("t", () -> {
			throw new IOException("no route");
		}, ConnectionPoolSettings.builder().minIdle(1).build(), Ticker.system(), List.of(),
				ContextSnapshotFactory.builder().build(), threads));
		assertThat(threads.isShutdown()).isTrue();
	}

	@Test
	void closingEndsThePoolsThreads() {
		ConnectionPool<Integer> pool = pool(1, Ticker.system());
		Hang hang = this.hangs.hang();
		assertThatExceptionOfType(OperationTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> hang.hang()));
		await().untilAsserted(() -> assertThat(this.factory.created).hasValue(2));
		hang.release();
		await().untilAsserted(() -> assertThat(pool.getStats().abandoned()).isZero());
		assertThat(poolThreads("p")).isNotEmpty();
		pool.close();
		await().untilAsserted(() -> assertThat(poolThreads("p")).isEmpty());
	}

	@Test
	void aListenerThatThrowsNeitherLeaksTheConnectionNorChangesTheResult() {
		ConnectionPool<Integer> pool = throwingListenerPool();
		assertThat(call(pool, LONG, (connection) -> "got " + connection)).isEqualTo("got 1");
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(call(pool, Duration.ofMillis(200), (connection) -> "got " + connection)).isEqualTo("got 1");
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.events).containsExactly("checkout ACQUIRED", "operation SUCCESS", "checkout ACQUIRED",
				"operation SUCCESS");
	}

	@Test
	void aListenerThatThrowsNeitherLeaksTheConnectionNorChangesATimeout() throws Exception {
		ConnectionPool<Integer> pool = throwingListenerPool();
		Hang hung = this.hangs.hang();
		assertThatExceptionOfType(OperationTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> hung.hang()));
		hung.release();
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
		Hang held = hold(pool);
		assertThatExceptionOfType(CheckoutTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(Duration.ofMillis(100), (connection) -> connection));
		held.release();
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
		await().untilAsserted(() -> assertThat(this.events).containsExactly("checkout TIMEOUT", "operation SUCCESS"));
	}

	/** A pool of one whose only listener records each event and then throws. */
	private ConnectionPool<Integer> throwingListenerPool() {
		return track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(1).build())
			.listener(new ConnectionPoolListener() {

				@Override
				public void onCheckout(String pool, CheckoutOutcome outcome, Duration waited) {
					ConnectionPoolTests.this.events.add("checkout " + outcome);
					throw new IllegalStateException("listener broken");
				}

				@Override
				public void onOperation(String pool, OperationOutcome outcome, Duration duration) {
					ConnectionPoolTests.this.events.add("operation " + outcome);
					throw new IllegalStateException("listener broken");
				}

			})
			.build());
	}

	@Test
	void nameAndSettingsAreKept() {
		ConnectionPoolSettings settings = ConnectionPoolSettings.builder().maxSize(3).build();
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("llm", this.factory).settings(settings).build());
		assertThat(pool.getName()).isEqualTo("llm");
		assertThat(pool.getSettings()).isSameAs(settings);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(3, 0, 0, 0, 0));
	}

	private ConnectionPool<Integer> pool(int maxSize, Ticker ticker) {
		return track(ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(maxSize).build())
			.ticker(ticker)
			.listener(new ConnectionPoolListener() {

				@Override
				public void onCheckout(String pool, CheckoutOutcome outcome, Duration waited) {
					ConnectionPoolTests.this.durations.add(waited);
					ConnectionPoolTests.this.events.add("checkout " + outcome);
				}

				@Override
				public void onOperation(String pool, OperationOutcome outcome, Duration duration) {
					ConnectionPoolTests.this.durations.add(duration);
					ConnectionPoolTests.this.events.add("operation " + outcome);
				}

			})
			.build());
	}

	/** One daemon worker thread, named as a pool's own on Java 17, for a pool given its executor. */
	private static ThreadPoolExecutor oneThread(String pool) {
		return new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (task) -> {
			Thread thread = new Thread(task, "resilience-pool-" + pool + "-1");
			thread.setDaemon(true);
			return thread;
		});
	}

	private static List<String> poolThreads(String pool) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((name) -> name.startsWith("resilience-pool-" + pool + "-"))
			.toList();
	}

	/** Runs a callback, its result typed loosely so that assertions need no type witness. */
	private static <T> Object call(ConnectionPool<T> pool, Duration timeout, ConnectionCallback<T, ?> callback) {
		return pool.withConnection(timeout, callback);
	}

	private <P extends ConnectionPool<?>> P track(P pool) {
		this.pools.add(pool);
		return pool;
	}

	/** Holds the pool's only connection from another caller until the hang is released. */
	private Hang hold(ConnectionPool<Integer> pool) throws InterruptedException {
		Hang hang = this.hangs.hang();
		this.callers.submit(() -> pool.withConnection(LONG, (connection) -> hang.hang()));
		assertThat(hang.entered.await(10, TimeUnit.SECONDS)).isTrue();
		this.events.clear();
		return hang;
	}

	private static <E extends Throwable> E catchThrowableOfType(
			org.assertj.core.api.ThrowableAssert.ThrowingCallable call, Class<E> type) {
		return org.assertj.core.api.Assertions.catchThrowableOfType(type, call);
	}

}
