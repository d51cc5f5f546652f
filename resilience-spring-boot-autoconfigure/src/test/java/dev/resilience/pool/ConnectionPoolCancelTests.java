package dev.resilience.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.Ticker;
import dev.resilience.pool.ConnectionPoolListener.CheckoutOutcome;
import dev.resilience.pool.ConnectionPoolListener.OperationOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Cancelling an asynchronous call: a cancellation that comes before the work started never lets
 * it start, and the connection, if one came, goes back as it is; one that comes while the work
 * runs invalidates the connection, closed only once the work let go of it.
 */
class ConnectionPoolCancelTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final CountingFactory factory = new CountingFactory();

	private final ManualTicker ticker = new ManualTicker(Duration.ofSeconds(5).toNanos());

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final List<ConnectionPool<?>> pools = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.pools.forEach(ConnectionPool::close);
	}

	@Test
	void aCancellationBetweenTheCheckoutAndTheStartNeverStartsTheWorkAndGivesTheConnectionBack() {
		DeadlinePool<Integer> pool = pool(1);
		AtomicInteger ran = new AtomicInteger();
		CompletableFuture<Object> result = pool.withConnectionAsync(TIMEOUT, (connection) -> {
			ran.incrementAndGet();
			return CompletableFuture.completedFuture(connection);
		});
		// The delivery: the lease is held, and the start waits for its turn on the scheduler (the
		// caller's thread delivered it, and the work never starts there).
		assertThat(this.scheduler.runNext()).isTrue();
		assertThat(pool.getStats().active()).isOne();
		assertThat(result.cancel(true)).isTrue();
		// Given back at once (the returning thread runs here), never invalidated.
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		this.scheduler.runDue();
		assertThat(ran).hasValue(0);
		assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0));
		assertThat(this.factory.created).hasValue(1);
		assertThat(this.factory.destroyed).hasValue(0);
		assertThat(this.events).containsExactly("checkout ACQUIRED");
		// The connection serves the next call.
		CompletableFuture<Integer> next = pool.withConnectionAsync(TIMEOUT, CompletableFuture::completedFuture);
		this.scheduler.runDue();
		assertThat(next).isCompletedWithValue(1);
	}

	@Test
	void aCancellationWhileTheWorkRunsInvalidatesTheConnectionOnceTheWorkLetsGo() {
		DeadlinePool<Integer> pool = pool(1);
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = pool.withConnectionAsync(TIMEOUT,
				(connection) -> work.minimalCompletionStage());
		this.scheduler.runDue();
		assertThat(result.cancel(true)).isTrue();
		// Its place is free at once (a replacement is made for it), the work still holds it.
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 1)));
		assertThat(this.factory.destroyed).hasValue(0);
		work.complete("let go");
		await().untilAsserted(() -> assertThat(this.factory.destroyedIds).containsExactly(1));
		await().untilAsserted(() -> assertThat(pool.getStats()).isEqualTo(new ConnectionPoolStats(1, 0, 1, 0, 0)));
		assertThat(this.factory.created).hasValue(2);
		assertThat(this.factory.destroyed).hasValue(1);
	}

	/**
	 * 16 threads, a pool of 4, real time: each call cancelled at once, after a moment, or not at
	 * all, while its connection is on its way, as its work starts, or while it runs. Whatever the
	 * order, a work runs only with a connection of its own that is open, and in the end nothing is
	 * held, waits or is lost: every connection made is idle or closed.
	 */
	@Test
	void cancellationsRacingTheStartLeakNothing() throws Exception {
		ScheduledExecutorService realScheduler = Executors.newScheduledThreadPool(2);
		ExecutorService callers = Executors.newFixedThreadPool(16);
		ExecutorService workers = Executors.newFixedThreadPool(4);
		try {
			ConnectionPool<Integer> pool = track(ConnectionPool.builder("stress", this.factory)
				.settings(ConnectionPoolSettings.builder().maxSize(4).build())
				.ticker(Ticker.system())
				.scheduler(realScheduler)
				.build());
			AtomicInteger ran = new AtomicInteger();
			AtomicInteger wrong = new AtomicInteger();
			List<Future<?>> calls = new ArrayList<>();
			for (int thread = 0; thread < 16; thread++) {
				calls.add(callers.submit(() -> {
					for (int call = 0; call < 200; call++) {
						CompletableFuture<Integer> result = pool.withConnectionAsync(TIMEOUT, (connection) -> {
							ran.incrementAndGet();
							if (!connection.equals(pool.current()) || this.factory.destroyedIds.contains(connection)) {
								wrong.incrementAndGet();
							}
							return CompletableFuture.supplyAsync(() -> connection, workers);
						});
						int when = ThreadLocalRandom.current().nextInt(3);
						if (when == 1) {
							for (int spin = ThreadLocalRandom.current().nextInt(2_000); spin > 0; spin--) {
								Thread.onSpinWait();
							}
						}
						if (when < 2) {
							result.cancel(true);
						}
						try {
							result.get(30, TimeUnit.SECONDS);
						}
						catch (java.util.concurrent.CancellationException | java.util.concurrent.ExecutionException ex) {
							// Cancelled.
						}
					}
					return null;
				}));
			}
			for (Future<?> call : calls) {
				call.get(120, TimeUnit.SECONDS);
			}
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(pool.getStats()).satisfies((stats) -> {
					assertThat(stats.active()).isZero();
					assertThat(stats.pending()).isZero();
					assertThat(stats.abandoned()).isZero();
					assertThat(stats.idle()).isEqualTo(this.factory.created.get() - this.factory.destroyed.get());
				}));
			assertThat(wrong).hasValue(0);
			assertThat(ran.get()).isLessThanOrEqualTo(16 * 200);
			assertThat(this.factory.destroyedIds).hasSize(this.factory.destroyed.get());
		}
		finally {
			callers.shutdownNow();
			workers.shutdownNow();
			realScheduler.shutdownNow();
		}
	}

	private DeadlinePool<Integer> pool(int maxSize) {
		ConnectionPoolListener listener = new ConnectionPoolListener() {

			@Override
			public void onCheckout(String pool, CheckoutOutcome outcome, Duration waited) {
				ConnectionPoolCancelTests.this.events.add("checkout " + outcome);
			}

			@Override
			public void onOperation(String pool, OperationOutcome outcome, Duration duration) {
				ConnectionPoolCancelTests.this.events.add("operation " + outcome);
			}

		};
		return track(new DeadlinePool<>("p", this.factory, ConnectionPoolSettings.builder().maxSize(maxSize).build(),
				this.ticker, List.of(listener), ContextSnapshotFactory.builder().build(),
				WorkerThreads.create("p", maxSize), this.scheduler, ManualScheduler.direct(), ManualScheduler.direct(),
				ManualScheduler.direct()));
	}

	private <P extends ConnectionPool<?>> P track(P pool) {
		this.pools.add(pool);
		return pool;
	}

}
