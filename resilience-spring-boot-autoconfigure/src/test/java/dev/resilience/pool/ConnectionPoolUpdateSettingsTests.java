package dev.resilience.pool;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests {@link ConnectionPool#updateSettings}: a larger pool lets in the callers waiting for a
 * connection, blocked or not, at once; a smaller one takes no connection away, closes the idle
 * ones beyond its size and those out beyond it as they come back; the worker threads follow the
 * size. The exact tests borrow and give back on the calling thread, with a manual clock.
 */
class ConnectionPoolUpdateSettingsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final CountingFactory factory = new CountingFactory();

	private final ManualTicker ticker = new ManualTicker(Duration.ofSeconds(5).toNanos());

	private final ManualScheduler scheduler = new ManualScheduler(new ManualTicker());

	private final List<ConnectionPool<?>> pools = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.pools.forEach(ConnectionPool::close);
	}

	@Test
	void aLargerPoolLetsABlockedCallerInAtOnce() throws Exception {
		try (ConnectionPool<Object> pool = ConnectionPool.permits("resized")
			.settings(ConnectionPoolSettings.builder().maxSize(1).build())
			.build()) {
			ConnectionLease<Object> held = pool.checkoutAsync(Duration.ofSeconds(60)).get(10, TimeUnit.SECONDS);
			CompletableFuture<String> blocked = CompletableFuture
				.supplyAsync(() -> pool.withConnection(Duration.ofSeconds(60), (connection) -> "ran"));
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (pool.getStats().pending() == 0 && System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(pool.getStats().pending()).isEqualTo(1);
			pool.updateSettings(ConnectionPoolSettings.builder().maxSize(2).build());
			assertThat(blocked.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
			assertThat(pool.getStats().maxSize()).isEqualTo(2);
			held.release();
		}
	}

	@Test
	void aSmallerPoolTakesNoConnectionAwayAndHandsOutNoMoreUntilFewerAreOut() throws Exception {
		try (ConnectionPool<Object> pool = ConnectionPool.permits("shrunk")
			.settings(ConnectionPoolSettings.builder().maxSize(2).build())
			.build()) {
			ConnectionLease<Object> first = pool.checkoutAsync(Duration.ofSeconds(60)).get(10, TimeUnit.SECONDS);
			ConnectionLease<Object> second = pool.checkoutAsync(Duration.ofSeconds(60)).get(10, TimeUnit.SECONDS);
			pool.updateSettings(ConnectionPoolSettings.builder().maxSize(1).build());
			assertThat(pool.getStats().active()).isEqualTo(2);
			CompletableFuture<ConnectionLease<Object>> third = pool.checkoutAsync(Duration.ofSeconds(60));
			first.release();
			assertThatExceptionOfType(TimeoutException.class).isThrownBy(() -> third.get(300, TimeUnit.MILLISECONDS));
			assertThat(pool.getStats().active()).isEqualTo(1);
			second.release();
			third.get(10, TimeUnit.SECONDS).release();
		}
	}

	@Test
	void aSmallerPoolClosesTheIdleConnectionsBeyondItsSize() {
		DeadlinePool<Integer> pool = pool(3, WorkerThreads.create("p", 3));
		ConnectionLease<Integer> held = hold(pool);
		ConnectionLease<Integer> idle = hold(pool);
		hold(pool).release();
		idle.release();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(3, 1, 2, 0, 0));
		pool.updateSettings(size(2));
		// One out and one idle make two: the other idle one is closed at once.
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(2, 1, 1, 0, 0));
		assertThat(this.factory.destroyed).hasValue(1);
		ConnectionLease<Integer> second = hold(pool);
		CompletableFuture<ConnectionLease<Integer>> third = pool.checkoutAsync(TIMEOUT);
		this.scheduler.runDue();
		assertThat(third).isNotDone();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(2, 2, 0, 1, 0));
		held.release();
		this.scheduler.runDue();
		assertThat(third.join().connection()).isEqualTo(held.connection());
		second.release();
		third.join().release();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(2, 0, 2, 0, 0));
		assertThat(this.factory.created).hasValue(3);
		assertThat(this.factory.destroyed).hasValue(1);
	}

	@Test
	void aSmallerPoolWithMoreOutThanItsSizeClosesThoseThatComeBackUntilItFits() {
		DeadlinePool<Integer> pool = pool(3, WorkerThreads.create("p", 3));
		ConnectionLease<Integer> first = hold(pool);
		ConnectionLease<Integer> second = hold(pool);
		ConnectionLease<Integer> third = hold(pool);
		pool.updateSettings(size(1));
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 3, 0, 0, 0));
		assertThat(this.factory.destroyed).hasValue(0);
		CompletableFuture<ConnectionLease<Integer>> waiting = pool.checkoutAsync(TIMEOUT);
		first.release();
		// Closed on the pool's replacing thread.
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).containsExactly(first.connection()));
		second.release();
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).hasSize(2));
		this.scheduler.runDue();
		assertThat(waiting).isNotDone();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 1, 0, 1, 0));
		// The last one out fits: it goes on to the waiting checkout.
		third.release();
		// The replacing thread's signal may serve it too: handed out on either thread, delivered here.
		await().until(() -> {
			this.scheduler.runDue();
			return waiting.isDone();
		});
		assertThat(waiting.join().connection()).isEqualTo(third.connection());
		waiting.join().release();
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.factory.destroyedIds).containsExactlyInAnyOrder(first.connection(), second.connection());
	}

	@Test
	void aLargerPoolServesAWaitingAsynchronousCheckoutAtOnce() {
		DeadlinePool<Integer> pool = pool(1, WorkerThreads.create("p", 1));
		ConnectionLease<Integer> held = hold(pool);
		CompletableFuture<ConnectionLease<Integer>> waiting = pool.checkoutAsync(TIMEOUT);
		this.scheduler.runDue();
		assertThat(waiting).isNotDone();
		pool.updateSettings(size(3));
		this.scheduler.runDue();
		assertThat(waiting.join().connection()).isEqualTo(2);
		// Only the connection asked for is made.
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(3, 2, 0, 0, 0));
		held.release();
		assertThat(this.factory.created).hasValue(2);
	}

	@Test
	void theWorkerThreadsFollowTheSizeOnJava17() {
		ExecutorService workers = WorkerThreads.create("p", 4);
		DeadlinePool<Integer> pool = pool(4, workers);
		pool.updateSettings(size(8));
		if (Runtime.version().feature() < 21) {
			ThreadPoolExecutor threads = (ThreadPoolExecutor) workers;
			assertThat(threads.getMaximumPoolSize()).isEqualTo(16);
			assertThat(threads.getCorePoolSize()).isEqualTo(16);
			pool.updateSettings(size(2));
			assertThat(threads.getMaximumPoolSize()).isEqualTo(4);
			assertThat(threads.getCorePoolSize()).isEqualTo(4);
			pool.updateSettings(size(3));
			assertThat(threads.getMaximumPoolSize()).isEqualTo(6);
			assertThat(threads.getCorePoolSize()).isEqualTo(6);
		}
		else {
			assertThat(workers).isNotInstanceOf(ThreadPoolExecutor.class);
		}
		assertThat(pool.withConnection(TIMEOUT, (Integer connection) -> connection)).isEqualTo(1);
	}

	@Test
	void aPoolWhoseWorkersAreNoThreadPoolTakesNewSettingsAllTheSame() {
		DeadlinePool<Integer> pool = pool(1, new ParkingThread("p-worker"));
		ConnectionPoolSettings larger = size(2);
		pool.updateSettings(larger);
		assertThat(pool.getSettings()).isSameAs(larger);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(2, 0, 0, 0, 0));
		assertThat(pool.withConnection(TIMEOUT, (Integer connection) -> connection)).isEqualTo(1);
	}

	private static ConnectionPoolSettings size(int maxSize) {
		return ConnectionPoolSettings.builder().maxSize(maxSize).build();
	}

	/** Checks out a connection, delivered at once: the pool borrows and gives back on this thread. */
	private ConnectionLease<Integer> hold(DeadlinePool<Integer> pool) {
		CompletableFuture<ConnectionLease<Integer>> checkout = pool.checkoutAsync(TIMEOUT);
		this.scheduler.runDue();
		assertThat(checkout).isCompleted();
		return checkout.join();
	}

	private DeadlinePool<Integer> pool(int maxSize, ExecutorService workers) {
		DeadlinePool<Integer> pool = new DeadlinePool<>("p", this.factory, size(maxSize), this.ticker, List.of(),
				ContextSnapshotFactory.builder().build(), workers, this.scheduler, ManualScheduler.direct(),
				ManualScheduler.direct(), ManualScheduler.direct());
		this.pools.add(pool);
		return pool;
	}

}
