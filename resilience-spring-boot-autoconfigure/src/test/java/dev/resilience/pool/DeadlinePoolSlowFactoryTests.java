package dev.resilience.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A blocking call whose connection must be made by a factory that is slow or hangs (a connect
 * that never answers): the caller is back at its deadline, and the connection made later goes
 * back to the pool for the next caller. Real time: the creation runs on another thread.
 */
class DeadlinePoolSlowFactoryTests {

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	/** How late a caller may come back on a busy machine. */
	private static final Duration SLACK = Duration.ofMillis(1_200);

	private final Hang connect = new Hang();

	private final CountingFactory factory = new CountingFactory().onCreate(this.connect::hang);

	private final List<ConnectionPool<?>> pools = new CopyOnWriteArrayList<>();

	@AfterEach
	void release() {
		this.connect.release();
		this.pools.forEach(ConnectionPool::close);
	}

	@Test
	void aCallerWhoseConnectionHangsInTheFactoryIsBackAtItsDeadlineAndTheConnectionIsKept() throws Exception {
		ConnectionPool<Integer> pool = pool(1);

		CompletableFuture<Integer> call = CompletableFuture
			.supplyAsync(() -> pool.withConnection(TIMEOUT, (connection) -> connection), runOnNewThread());

		assertThat(call).failsWithin(TIMEOUT.plus(SLACK))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(CheckoutTimeoutException.class);
		assertThat(this.connect.entered.getCount()).isZero();
		// the connect answers at last: its connection goes back, made once, used by the next caller
		this.connect.release();
		await().atMost(Duration.ofSeconds(10)).until(() -> pool.getStats().idle() == 1);
		Integer used = pool.withConnection(TIMEOUT, (connection) -> connection);
		assertThat(used).isEqualTo(1);
		assertThat(this.factory.created).hasValue(1);
		assertThat(this.factory.destroyed).hasValue(0);
	}

	@Test
	void aCallerInterruptedWhileItsConnectionIsMadeStopsAtOnceAndTheConnectionIsKept() throws Exception {
		ConnectionPool<Integer> pool = pool(1);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		CountDownLatch back = new CountDownLatch(1);
		Thread caller = new Thread(() -> {
			try {
				pool.withConnection(Duration.ofSeconds(30), (connection) -> connection);
			}
			catch (Throwable ex) {
				failure.set(ex);
			}
			if (Thread.currentThread().isInterrupted()) {
				back.countDown();
			}
		});
		caller.start();
		assertThat(this.connect.entered.await(10, TimeUnit.SECONDS)).isTrue();

		caller.interrupt();

		assertThat(back.await(10, TimeUnit.SECONDS)).as("back with its interrupt flag set").isTrue();
		assertThat(failure.get()).isInstanceOf(CancellationException.class);
		this.connect.release();
		await().atMost(Duration.ofSeconds(10)).until(() -> pool.getStats().idle() == 1);
		assertThat(this.factory.created).hasValue(1);
	}

	@Test
	void aCallerWaitingForItsConnectionToBeMadeWhenThePoolClosesIsToldSo() throws Exception {
		ConnectionPool<Integer> pool = pool(1);
		CompletableFuture<Throwable> failure = new CompletableFuture<>();
		Thread caller = new Thread(() -> {
			try {
				pool.withConnection(Duration.ofSeconds(30), (connection) -> connection);
				failure.complete(null);
			}
			catch (Throwable ex) {
				failure.complete(ex);
			}
		});
		caller.start();
		assertThat(this.connect.entered.await(10, TimeUnit.SECONDS)).isTrue();

		// the connect still hangs: the caller is told at once all the same
		pool.close();

		assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
			.hasMessage("Pool 'slow' is closed");
	}

	/** A connection to be made waits for a worker thread; the pool closes before one frees. */
	@Test
	void aCallerWhoseConnectionWaitsForAThreadWhenThePoolClosesIsToldSo() throws Exception {
		ThreadPoolExecutor workers = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
		CountDownLatch busy = new CountDownLatch(1);
		workers.execute(() -> {
			try {
				busy.await();
			}
			catch (InterruptedException ex) {
				// closing the pool interrupts it
			}
		});
		ConnectionPool<Integer> pool = track(new DeadlinePool<>("waiting", new CountingFactory(),
				ConnectionPoolSettings.builder().maxSize(1).build(), System::nanoTime, List.of(),
				ContextSnapshotFactory.builder().build(), workers));
		CompletableFuture<Integer> call = CompletableFuture
			.supplyAsync(() -> pool.withConnection(Duration.ofSeconds(30), (connection) -> connection), runOnNewThread());
		await().atMost(Duration.ofSeconds(10)).until(() -> workers.getQueue().size() == 1);

		pool.close();

		assertThat(call).failsWithin(Duration.ofSeconds(10))
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(IllegalStateException.class)
			.withMessage("Pool 'waiting' is closed");
	}

	/** Connections of a cold pool are made side by side, not one after another. */
	@Test
	void callersOfAColdPoolHaveTheirConnectionsMadeAtTheSameTime() throws Exception {
		int size = 4;
		CountDownLatch allConnecting = new CountDownLatch(size);
		CountingFactory slow = new CountingFactory().onCreate(() -> {
			allConnecting.countDown();
			try {
				// each connect waits for all of them: made one after another, none would finish
				allConnecting.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("cold", slow)
			.settings(ConnectionPoolSettings.builder().maxSize(size).build())
			.build());
		List<CompletableFuture<Integer>> calls = new ArrayList<>();
		for (int i = 0; i < size; i++) {
			calls.add(CompletableFuture.supplyAsync(() -> pool.withConnection(Duration.ofSeconds(5), (connection) -> {
				Thread.sleep(200); // holds it, so that every caller needs a connection of its own
				return connection;
			}), runOnNewThread()));
		}
		for (CompletableFuture<Integer> call : calls) {
			assertThat(call).succeedsWithin(Duration.ofSeconds(10));
		}
		assertThat(slow.created).hasValue(size);
	}

	private static Executor runOnNewThread() {
		return (task) -> new Thread(task).start();
	}

	private ConnectionPool<Integer> pool(int maxSize) {
		return track(ConnectionPool.builder("slow", this.factory)
			.settings(ConnectionPoolSettings.builder().maxSize(maxSize).build())
			.build());
	}

	private <P extends ConnectionPool<?>> P track(P pool) {
		this.pools.add(pool);
		return pool;
	}

}
