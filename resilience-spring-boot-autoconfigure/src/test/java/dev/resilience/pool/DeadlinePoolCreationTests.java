package dev.resilience.pool;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A factory that hangs while a blocking checkout needs a connection: the caller is back at its
 * deadline (docs/pools.md, "One deadline"), interrupted or told the pool closed at once, and the
 * connection made late is kept or closed, never lost. Real time: the factory hangs on a thread.
 */
class DeadlinePoolCreationTests {

	private static final Duration SHORT = Duration.ofMillis(300);

	private static final Duration LONG = Duration.ofSeconds(30);

	/** Far more than a caller may take past its deadline, far less than never. */
	private static final Duration BACK_WITHIN = Duration.ofSeconds(5);

	private final CountingFactory factory = new CountingFactory();

	private final Hangs hangs = new Hangs();

	private final List<ConnectionPool<?>> pools = new CopyOnWriteArrayList<>();

	/** The threads the factory made connections on, once it hangs. */
	private final List<String> createThreads = new CopyOnWriteArrayList<>();

	@AfterEach
	void release() {
		this.hangs.releaseAll();
		this.pools.forEach(ConnectionPool::close);
	}

	@Test
	void aCallerIsBackAtItsDeadlineWhileTheFactoryHangsAndTheConnectionMadeLaterServesTheNextCall() {
		Hang hang = hangCreations();
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(1).build());
		long start = System.nanoTime();
		assertTimeoutPreemptively(BACK_WITHIN, () -> assertThatExceptionOfType(CheckoutTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> connection)));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(SHORT);
		assertThat(hang.entered.getCount()).isZero();
		hang.release();
		// Made after its caller left, it goes into the pool rather than being lost or leaked.
		await().atMost(BACK_WITHIN).until(() -> pool.getStats().idle() == 1);
		assertThat(pool.<Integer>withConnection(LONG, (connection) -> connection)).isEqualTo(1);
		assertThat(this.factory.created).hasValue(1);
		assertThat(this.factory.destroyed).hasValue(0);
	}

	@Test
	void aCallerInterruptedWhileItsConnectionIsMadeStopsAtOnceWithItsInterruptKept() throws Exception {
		Hang hang = hangCreations();
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(1).build());
		CompletableFuture<Throwable> outcome = new CompletableFuture<>();
		AtomicBoolean interruptKept = new AtomicBoolean();
		Thread caller = new Thread(() -> {
			try {
				pool.withConnection(LONG, (connection) -> connection);
				outcome.complete(null);
			}
			catch (Throwable ex) {
				interruptKept.set(Thread.currentThread().isInterrupted());
				outcome.complete(ex);
			}
		});
		caller.start();
		assertThat(hang.entered.await(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		caller.interrupt();
		assertThat(outcome.get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS))
			.isInstanceOf(CancellationException.class)
			.hasMessage("Interrupted while waiting for pool 'p'");
		assertThat(interruptKept).isTrue();
		hang.release();
		await().atMost(BACK_WITHIN).until(() -> pool.getStats().idle() == 1);
		assertThat(this.factory.destroyed).hasValue(0);
	}

	@Test
	void closingThePoolWhileTheFactoryHangsTellsTheCallerAtOnceAndClosesTheConnectionMadeLater() throws Exception {
		Hang hang = hangCreations();
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(1).build());
		CompletableFuture<Integer> call = CompletableFuture
			.supplyAsync(() -> pool.withConnection(LONG, (connection) -> connection));
		assertThat(hang.entered.await(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		pool.close();
		assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> call.orTimeout(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS).join())
			.havingCause()
			.isInstanceOf(IllegalStateException.class)
			.withMessage("Pool 'p' is closed");
		// The factory ignores the interrupt of closing; once it returns, the connection is closed.
		hang.release();
		await().atMost(BACK_WITHIN).until(() -> this.factory.destroyed.get() == 1);
		assertThat(this.factory.created).hasValue(1);
	}

	@Test
	void aCallerWhoseConnectionFailsValidationIsNotHeldByTheReplacementsFactory() {
		this.factory.validWhen((connection) -> connection != 1);
		ConnectionPool<Integer> pool = pool(
				ConnectionPoolSettings.builder().maxSize(1).minIdle(1).validateOnCheckout(true).build());
		Hang hang = hangCreations();
		assertTimeoutPreemptively(BACK_WITHIN, () -> assertThatExceptionOfType(CheckoutTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> connection)));
		// Connection 1 was destroyed, off the caller's thread; its replacement is being made.
		await().atMost(BACK_WITHIN).until(() -> this.factory.destroyedIds.contains(1));
		assertThat(this.factory.destroyThreads).noneMatch((thread) -> thread.equals(Thread.currentThread().getName()));
		assertThat(hang.entered.getCount()).isZero();
		hang.release();
		await().atMost(BACK_WITHIN).until(() -> pool.getStats().idle() == 1);
		assertThat(pool.<Integer>withConnection(LONG, (connection) -> connection)).isEqualTo(2);
	}

	@Test
	void aConnectionFailingValidationWhoseReplacementCannotBeMadeGivesTheCallerTheFactorysException() {
		ConnectionFactory<Integer> factory = new ConnectionFactory<>() {

			private final AtomicInteger created = new AtomicInteger();

			@Override
			public Integer create() {
				if (this.created.incrementAndGet() == 2) {
					throw new IllegalStateException("connection refused");
				}
				return this.created.get();
			}

			@Override
			public boolean validate(Integer connection) {
				return connection != 1;
			}

			@Override
			public void destroy(Integer connection) throws InterruptedException {
				// Closing takes a moment: the caller must not be waiting for a connection meanwhile,
				// where nobody would tell it that none can be made.
				Thread.sleep(300);
			}

		};
		ConnectionPool<Integer> pool = pool(factory,
				ConnectionPoolSettings.builder().maxSize(1).minIdle(1).validateOnCheckout(true).build());
		long start = System.nanoTime();
		assertThatIllegalStateException()
			.isThrownBy(() -> pool.withConnection(Duration.ofSeconds(3), (connection) -> connection))
			.withMessage("connection refused");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
	}

	/**
	 * A replacement is made on a creating thread, never on the replacing thread, where a factory
	 * that hangs would hold up every invalidation behind it, and the places they free.
	 */
	@Test
	void aReplacementThatHangsHoldsUpNoInvalidationBehindIt() {
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(2).minIdle(2).build());
		Hang replacement = hangCreations();
		Hang work = this.hangs.hang(2);
		List<Integer> invalidated = new CopyOnWriteArrayList<>();
		ConnectionCallback<Integer, Object> hangRecordingConnection = (connection) -> {
			invalidated.add(connection);
			return work.hang();
		};
		assertThatExceptionOfType(OperationTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, hangRecordingConnection));
		await().atMost(BACK_WITHIN).until(() -> replacement.entered.getCount() == 0);
		this.factory.onCreate(() -> {
		});
		assertThatExceptionOfType(OperationTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, hangRecordingConnection));
		// The second invalidation freed its place while the first replacement still hangs: a
		// connection made since serves the next call. Which number it has depends on whether
		// Commons Pool's own top-up or the replacement made it first.
		assertThat(pool.<Integer>withConnection(BACK_WITHIN, (connection) -> connection)).isNotIn(invalidated);
		assertThat(invalidated).hasSize(2).doesNotHaveDuplicates();
		assertThat(replacement.entered.getCount()).isZero();
		assertThat(replacement.left).hasValue(0);
	}

	/**
	 * A factory slower than the callers' deadlines: the first caller leaves and its creation goes
	 * on; the next caller's creation waits for a creating thread behind it (a pool of 1 has one).
	 * The connection the first creation makes serves the next caller, whose own creation then
	 * never starts; put in the pool instead, it would find no room (the next caller's creation
	 * holds it) and be closed, and nobody would ever be served.
	 */
	@Test
	void aConnectionMadeTooLateForItsCallerServesTheNextCallerWaitingForACreation() throws Exception {
		Hang hang = hangCreations();
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(1).build());
		assertThatExceptionOfType(CheckoutTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> connection));
		CompletableFuture<Integer> next = new CompletableFuture<>();
		Thread caller = new Thread(() -> next.complete(pool.withConnection(LONG, (connection) -> connection)));
		caller.start();
		await().atMost(BACK_WITHIN).until(() -> caller.getState() == Thread.State.TIMED_WAITING);
		hang.release();
		assertThat(next.get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(1);
		assertThat(this.factory.created).hasValue(1);
		assertThat(this.factory.destroyed).hasValue(0);
	}

	@Test
	void aLargerPoolMakesAsManyConnectionsAtOnceAsItsNewSize() {
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(1).build());
		pool.updateSettings(ConnectionPoolSettings.builder().maxSize(2).build());
		Hang hang = this.hangs.hang(2);
		this.factory.onCreate(hang::hang);
		for (int i = 0; i < 2; i++) {
			CompletableFuture.runAsync(() -> pool.withConnection(LONG, (connection) -> connection));
		}
		await().atMost(BACK_WITHIN).until(() -> hang.entered.getCount() == 0);
	}

	/**
	 * The asynchronous checkouts' borrowing thread never waits for a connection being made: a
	 * factory that hangs would hold it, and every connection given back from reaching a checkout.
	 */
	@Test
	void aConnectionGivenBackServesAnAsynchronousCheckoutWhileTheFactoryHangs() throws Exception {
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(2).build());
		ConnectionLease<Integer> held = pool.checkoutAsync(LONG).get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		Hang hang = hangCreations();
		CompletableFuture<ConnectionLease<Integer>> first = pool.checkoutAsync(Duration.ofSeconds(4));
		assertThat(hang.entered.await(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		CompletableFuture<ConnectionLease<Integer>> second = pool.checkoutAsync(LONG);
		held.release();
		// well before the first checkout's deadline
		assertThat(first.get(2, TimeUnit.SECONDS).connection()).isEqualTo(1);
		assertThat(second).isNotDone();
		assertThat(this.createThreads).allMatch((thread) -> thread.startsWith("resilience-pool-p-creator-"));
		// Made at last, the connection serves the second checkout.
		hang.release();
		assertThat(second.get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS).connection()).isEqualTo(2);
		assertThat(this.factory.destroyed).hasValue(0);
	}

	/**
	 * A replacement that hangs is no creation for the asynchronous checkouts: they have their own
	 * made while the pool has room.
	 */
	@Test
	void anAsynchronousCheckoutIsNotLeftWaitingBehindAReplacementThatHangs() throws Exception {
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(3).build());
		ConnectionLease<Integer> held = pool.checkoutAsync(LONG).get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		Hang replacement = this.hangs.hang();
		AtomicBoolean hangs = new AtomicBoolean(true);
		this.factory.onCreate(() -> {
			if (hangs.getAndSet(false)) {
				replacement.hang();
			}
		});
		held.invalidate();
		assertThat(replacement.entered.await(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(LONG);
		assertThat(checkout.get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS).connection()).isEqualTo(2);
	}

	@Test
	void aConnectionFailingValidationOnTheBorrowingThreadIsNotReplacedOnThatThread() throws Exception {
		ConnectionPool<Integer> pool = pool(
				ConnectionPoolSettings.builder().maxSize(2).validateOnCheckout(true).build());
		ConnectionLease<Integer> one = pool.checkoutAsync(LONG).get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		ConnectionLease<Integer> two = pool.checkoutAsync(LONG).get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		two.release();
		await().atMost(BACK_WITHIN).until(() -> pool.getStats().idle() == 1);
		this.factory.validWhen((connection) -> connection != 2);
		Hang hang = hangCreations();
		CompletableFuture<ConnectionLease<Integer>> timesOut = pool.checkoutAsync(SHORT);
		assertThat(hang.entered.await(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		CompletableFuture<ConnectionLease<Integer>> next = pool.checkoutAsync(LONG);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(timesOut::join)
			.withCauseInstanceOf(CheckoutTimeoutException.class);
		one.release();
		assertThat(next.get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS).connection()).isEqualTo(1);
		assertThat(this.createThreads).allMatch((thread) -> thread.startsWith("resilience-pool-p-creator-"));
		await().atMost(BACK_WITHIN).until(() -> this.factory.destroyedIds.contains(2));
	}

	@Test
	void growingThePoolMakesConnectionsForTheCallersWaitingOnCreatingThreads() throws Exception {
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(1).build());
		ConnectionLease<Integer> held = pool.checkoutAsync(LONG).get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		CompletableFuture<Integer> waiter = CompletableFuture
			.supplyAsync(() -> pool.withConnection(LONG, (connection) -> connection));
		await().atMost(BACK_WITHIN).until(() -> pool.getStats().pending() == 1);
		Hang hang = hangCreations();
		pool.updateSettings(ConnectionPoolSettings.builder().maxSize(2).build());
		assertThat(hang.entered.await(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		assertThat(this.createThreads).allMatch((thread) -> thread.startsWith("resilience-pool-p-creator-"));
		// The replacing thread is free: an invalidation frees its place and closes it at once.
		held.invalidate();
		await().atMost(BACK_WITHIN).until(() -> this.factory.destroyedIds.contains(1));
		hang.release();
		assertThat(waiter.get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isGreaterThan(1);
	}

	/**
	 * A checkout past its deadline by the pool's clock whose deadline has not run yet (a clock
	 * moved by hand, or a scheduler late): the borrowing thread has no connection made for it, and
	 * must not ask again and again.
	 */
	@Test
	void theBorrowingThreadDoesNotSpinWhileTheFirstCheckoutIsPastItsDeadline() throws Exception {
		AtomicLong now = new AtomicLong();
		AtomicLong reads = new AtomicLong();
		ConnectionPool<Integer> pool = ConnectionPool.builder("p", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(1).build())
			.ticker(() -> {
				reads.incrementAndGet();
				return now.get();
			})
			.build();
		this.pools.add(pool);
		ConnectionLease<Integer> held = pool.checkoutAsync(LONG).get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		CompletableFuture<ConnectionLease<Integer>> waiting = pool.checkoutAsync(Duration.ofSeconds(10));
		Hang hang = hangCreations();
		now.addAndGet(Duration.ofSeconds(20).toNanos());
		held.invalidate(); // frees the place; its replacement hangs
		assertThat(hang.entered.await(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		Thread.sleep(200);
		long before = reads.get();
		Thread.sleep(500);
		assertThat(reads.get() - before).as("clock reads in 500 ms").isLessThan(1000);
		assertThat(waiting).isNotDone();
	}

	/**
	 * Commons Pool's create(), given no time to wait, spins while another thread's creation may fill
	 * the pool. The borrowing thread must not call it then: here one connection's destroy hangs (it
	 * still takes its place) and another is being made, so the pool of 2 is full, although neither
	 * is out.
	 */
	@Test
	void theBorrowingThreadDoesNotSpinWhileTheOnlyRoomIsTakenByADestroyAndACreation() throws Exception {
		ConnectionPool<Integer> pool = pool(ConnectionPoolSettings.builder().maxSize(2).build());
		ConnectionLease<Integer> lease = pool.checkoutAsync(LONG).get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		Hang destroying = this.hangs.hang();
		this.factory.onDestroy(destroying::hang);
		lease.invalidate();
		assertThat(destroying.entered.await(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		Hang creating = hangCreations();
		CompletableFuture.runAsync(() -> pool.withConnection(LONG, (connection) -> connection));
		assertThat(creating.entered.await(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long borrower = threadNamed("resilience-pool-p-borrower").getId();
		long cpuBefore = threads.getThreadCpuTime(borrower);
		assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> pool.checkoutAsync(Duration.ofSeconds(1)).join())
			.withCauseInstanceOf(CheckoutTimeoutException.class);
		assertThat(Duration.ofNanos(threads.getThreadCpuTime(borrower) - cpuBefore))
			.isLessThan(Duration.ofMillis(200));
	}

	private static Thread threadNamed(String name) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(name))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No thread named " + name));
	}

	/** From now on, the factory hangs in create until the returned hang is released. */
	private Hang hangCreations() {
		Hang hang = this.hangs.hang();
		this.factory.onCreate(() -> {
			this.createThreads.add(Thread.currentThread().getName());
			hang.hang();
		});
		return hang;
	}

	private ConnectionPool<Integer> pool(ConnectionPoolSettings settings) {
		return pool(this.factory, settings);
	}

	private ConnectionPool<Integer> pool(ConnectionFactory<Integer> factory, ConnectionPoolSettings settings) {
		ConnectionPool<Integer> pool = ConnectionPool.builder("p", factory).settings(settings).build();
		this.pools.add(pool);
		return pool;
	}

}
