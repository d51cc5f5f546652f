package dev.resilience.pool;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.micrometer.context.ContextSnapshotFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import dev.resilience.Ticker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An asynchronous checkout made on a thread that must not block (a Reactor thread, BlockHound
 * installed) while the pool's borrowing executor is busy: handing it the drain must not park, or
 * BlockHound fails the hand-off midway, the drain is never run, and the pool, which counts a drain
 * as asked for, serves no asynchronous checkout again.
 */
class DeadlinePoolNonBlockingTests {

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	@Test
	void aCheckoutOnANonBlockingThreadWhileTheBorrowersQueueIsHeldIsServedAndSoAreLaterOnes() throws Exception {
		CountingFactory factory = new CountingFactory();
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
		Scheduler nonBlocking = Schedulers.newParallel("pool-non-blocking", 1);
		CountDownLatch release = new CountDownLatch(1);
		DeadlinePool<Integer> pool = new DeadlinePool<>("p", factory,
				ConnectionPoolSettings.builder().maxSize(2).build(), Ticker.system(), List.of(),
				ContextSnapshotFactory.builder().build(), scheduler);
		try {
			// Another thread holds the lock of the borrowing executor's queue, if it has one.
			Thread holder = holdQueueLock(borrower(pool), release);
			CompletableFuture<CompletableFuture<ConnectionLease<Integer>>> first = Mono
				.fromCallable(() -> pool.checkoutAsync(Duration.ofSeconds(30)))
				.subscribeOn(nonBlocking)
				.toFuture();
			// Handing the drain over did not park: the first checkout is queued, not failed.
			assertThat(first).succeedsWithin(Duration.ofSeconds(30));
			release.countDown();
			if (holder != null) {
				holder.join(30_000);
			}
			CompletableFuture<ConnectionLease<Integer>> second = pool.checkoutAsync(Duration.ofSeconds(30));
			assertThat(second.get(30, TimeUnit.SECONDS).connection()).isPositive();
			assertThat(first.join().get(30, TimeUnit.SECONDS).connection()).isPositive();
			assertThat(factory.created).hasValue(2);
		}
		finally {
			release.countDown();
			pool.close();
			nonBlocking.dispose();
			scheduler.shutdownNow();
		}
	}

	private static ExecutorService borrower(DeadlinePool<?> pool) throws ReflectiveOperationException {
		Field field = DeadlinePool.class.getDeclaredField("borrower");
		field.setAccessible(true);
		return (ExecutorService) field.get(pool);
	}

	/**
	 * Holds the lock of a {@link ThreadPoolExecutor}'s queue on a thread of its own until released:
	 * the executor's thread is kept busy and a task queued, and a removal of an object whose
	 * {@code equals} waits compares it to that task while holding the queue's locks. An executor
	 * of no such queue has no lock to hold.
	 */
	private static @Nullable Thread holdQueueLock(ExecutorService executor, CountDownLatch release) throws Exception {
		if (!(executor instanceof ThreadPoolExecutor pool)) {
			return null;
		}
		CountDownLatch busy = new CountDownLatch(1);
		pool.execute(() -> {
			busy.countDown();
			awaitQuietly(release);
		});
		assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
		pool.execute(() -> {
		});
		BlockingQueue<Runnable> queue = pool.getQueue();
		CountDownLatch holding = new CountDownLatch(1);
		Object waiting = new Object() {

			@Override
			public boolean equals(Object other) {
				holding.countDown();
				awaitQuietly(release);
				return false;
			}

			@Override
			public int hashCode() {
				return 0;
			}

		};
		Thread holder = new Thread(() -> queue.remove(waiting), "queue-lock-holder");
		holder.start();
		assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
		return holder;
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
