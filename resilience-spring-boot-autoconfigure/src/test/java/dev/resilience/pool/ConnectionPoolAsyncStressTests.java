package dev.resilience.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import dev.resilience.autoconfigure.support.ContinuationScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 16 threads call a pool of 4 at once: 12 of them asynchronously, a quarter of those calls
 * hanging past the deadline, a quarter cancelled by the caller while they wait or run, the rest
 * done at once or a little later; 4 of them blocking. Every call ends with one outcome, every
 * callback ran once or never, and in the end nothing is held, nothing waits and every connection
 * ever made is idle or destroyed. And the same for 16 Reactor threads under BlockHound whose
 * subscriptions are disposed at random points.
 */
class ConnectionPoolAsyncStressTests {

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	private static final int ASYNC_THREADS = 12;

	private static final int BLOCKING_THREADS = 4;

	private static final int CALLS = 60;

	private static final int IN_FLIGHT = 8;

	private static final Duration DEADLINE = Duration.ofMillis(300);

	private static final int HANG = 0;

	private static final int CANCEL = 1;

	private static final int LATER = 2;

	private static final int AT_ONCE = 3;

	/** One call in 16 hangs, two are cancelled, six complete later, seven at once. */
	private static int kind(int thread, int call) {
		int slot = (call * 7 + thread) % 16;
		return (slot == 0) ? HANG : (slot <= 2) ? CANCEL : (slot <= 8) ? LATER : AT_ONCE;
	}

	@Test
	void everyCallEndsOnceAndNothingIsLeftHeld() throws Exception {
		CountingFactory factory = new CountingFactory();
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
		ExecutorService callers = Executors.newFixedThreadPool(ASYNC_THREADS + BLOCKING_THREADS);
		ExecutorService completers = Executors.newFixedThreadPool(2);
		try (ConnectionPool<Integer> pool = ConnectionPool.builder("stress", factory)
			.settings(ConnectionPoolSettings.builder().maxSize(4).build())
			.scheduler(scheduler)
			.build()) {
			CountDownLatch start = new CountDownLatch(1);
			List<AtomicInteger> runs = new ArrayList<>();
			for (int i = 0; i < ASYNC_THREADS * CALLS; i++) {
				runs.add(new AtomicInteger());
			}
			ConcurrentLinkedQueue<CompletableFuture<?>> hungWork = new ConcurrentLinkedQueue<>();
			AtomicInteger results = new AtomicInteger();
			AtomicInteger checkoutTimeouts = new AtomicInteger();
			AtomicInteger operationTimeouts = new AtomicInteger();
			AtomicInteger cancelled = new AtomicInteger();
			AtomicInteger blockingResults = new AtomicInteger();
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < ASYNC_THREADS; t++) {
				int thread = t;
				threads.add(callers.submit(() -> {
					start.await();
					List<CompletableFuture<?>> calls = new ArrayList<>();
					List<Integer> kinds = new ArrayList<>();
					for (int c = 0; c < CALLS; c++) {
						if (c >= IN_FLIGHT) {
							// A window of calls in flight per thread, so that the hung ones do not
							// fill the queue alone.
							try {
								calls.get(c - IN_FLIGHT).get(30, TimeUnit.SECONDS);
							}
							catch (ExecutionException | CancellationException ex) {
								// Read below.
							}
						}
						int call = thread * CALLS + c;
						int kind = kind(thread, c);
						AtomicInteger ran = runs.get(call);
						CompletableFuture<Integer> result = pool.withConnectionAsync(DEADLINE, (connection) -> {
							ran.incrementAndGet();
							if (kind == HANG || kind == CANCEL) {
								CompletableFuture<Integer> hung = new CompletableFuture<>();
								hungWork.add(hung);
								return hung;
							}
							if (kind == LATER) {
								return CompletableFuture.supplyAsync(() -> connection, completers);
							}
							return CompletableFuture.completedFuture(connection);
						});
						if (kind == CANCEL) {
							Thread.sleep(ThreadLocalRandom.current().nextInt(3));
							result.cancel(true);
						}
						calls.add(result);
						kinds.add(kind);
					}
					for (int c = 0; c < calls.size(); c++) {
						try {
							calls.get(c).get(30, TimeUnit.SECONDS);
							results.incrementAndGet();
						}
						catch (CancellationException ex) {
							assertThat(kinds.get(c)).isEqualTo(CANCEL);
							cancelled.incrementAndGet();
						}
						catch (ExecutionException ex) {
							if (ex.getCause() instanceof CheckoutTimeoutException) {
								assertThat(runs.get(thread * CALLS + c)).hasValue(0);
								checkoutTimeouts.incrementAndGet();
							}
							else {
								// Any call may get its connection too late to finish in time.
								assertThat(ex.getCause()).isInstanceOf(OperationTimeoutException.class);
								operationTimeouts.incrementAndGet();
							}
						}
					}
					return null;
				}));
			}
			for (int t = 0; t < BLOCKING_THREADS; t++) {
				threads.add(callers.submit(() -> {
					start.await();
					for (int c = 0; c < CALLS; c++) {
						try {
							pool.withConnection(DEADLINE, (connection) -> connection);
							blockingResults.incrementAndGet();
						}
						catch (DeadlineExceededException ex) {
							// A fair outcome while hung work holds the connections.
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			assertThat(results.get() + checkoutTimeouts.get() + operationTimeouts.get() + cancelled.get())
				.isEqualTo(ASYNC_THREADS * CALLS);
			assertThat(results).hasPositiveValue();
			assertThat(operationTimeouts).hasPositiveValue();
			assertThat(cancelled).hasPositiveValue();
			assertThat(blockingResults).hasPositiveValue();
			assertThat(runs).allSatisfy((ran) -> assertThat(ran.get()).isBetween(0, 1));
			// Hung work was cancelled, at its deadline or by its caller.
			assertThat(hungWork).allSatisfy((work) -> assertThat(work).isCancelled());
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				ConnectionPoolStats stats = pool.getStats();
				assertThat(stats.active()).as("active, %s", pool).isZero();
				assertThat(stats.pending()).as("pending, %s", pool).isZero();
				assertThat(stats.abandoned()).isZero();
				assertThat(factory.created.get() - factory.destroyed.get()).isEqualTo(stats.idle());
			});
			assertThat(factory.destroyed).hasPositiveValue();
			assertThat(pool.getStats().idle()).isLessThanOrEqualTo(4);
		}
		finally {
			callers.shutdownNow();
			completers.shutdownNow();
			scheduler.shutdownNow();
			assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
	}


	/**
	 * Subscriptions on 16 Reactor threads, where nothing may block, disposed at random points: while
	 * they wait, as their connection is handed out, while the work runs, or never. The work ends on
	 * Reactor threads and the pool's scheduler runs on threads BlockHound watches as well: a
	 * connection given back there could park on Commons Pool's lock, fail midway and be lost.
	 */
	@Test
	void subscriptionsDisposedAtRandomOnSixteenNonBlockingThreadsLeaveEveryConnectionIdle() throws Exception {
		int threads = 16;
		int callsPerThread = 150;
		CountingFactory factory = new CountingFactory();
		ScheduledExecutorService scheduler = ContinuationScheduler.create(false);
		Scheduler subscribers = Schedulers.newParallel("pool-stress", threads);
		AtomicInteger values = new AtomicInteger();
		AtomicInteger disposed = new AtomicInteger();
		AtomicInteger checkoutTimeouts = new AtomicInteger();
		try (ConnectionPool<Integer> pool = ConnectionPool.builder("reactive", factory)
			.settings(ConnectionPoolSettings.builder().maxSize(4).build())
			.scheduler(scheduler)
			.build()) {
			Mono<Integer> call = Mono.fromFuture(() -> pool.withConnectionAsync(Duration.ofSeconds(5),
					(connection) -> Mono.just(connection)
						.delayElement(Duration.ofNanos(ThreadLocalRandom.current().nextLong(500_000)))
						.toFuture()),
					false);
			Flux.range(0, threads)
				.flatMap((thread) -> Flux.range(0, callsPerThread)
					.concatMap((i) -> call
						.take(Duration.ofNanos(ThreadLocalRandom.current().nextLong(600_000)), subscribers)
						.doOnNext((value) -> values.incrementAndGet())
						.switchIfEmpty(Mono.fromRunnable(disposed::incrementAndGet))
						.onErrorResume(CheckoutTimeoutException.class, (ex) -> {
							checkoutTimeouts.incrementAndGet();
							return Mono.empty();
						}))
					.subscribeOn(subscribers), threads)
				.then()
				.block(Duration.ofSeconds(120));
			assertThat(values.get() + disposed.get() + checkoutTimeouts.get()).isEqualTo(threads * callsPerThread);
			assertThat(values).hasPositiveValue();
			assertThat(disposed).hasPositiveValue();
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				ConnectionPoolStats stats = pool.getStats();
				assertThat(stats.active()).as("active, %s", pool).isZero();
				assertThat(stats.pending()).as("pending, %s", pool).isZero();
				assertThat(stats.abandoned()).isZero();
				assertThat(stats.idle()).isEqualTo(factory.created.get() - factory.destroyed.get());
			});
			assertThat(pool.getStats().idle()).isBetween(1, 4);
		}
		finally {
			subscribers.dispose();
			scheduler.shutdownNow();
		}
	}

}
