package dev.resilience.pool;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.Ticker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The blocking call path of {@link DeadlinePool} at its ends: work that gets a thread only after
 * its caller gave the connection back, and callers still waiting when the pool closes.
 */
class DeadlinePoolLateWorkAndClosingTests {

	private static final Duration SHORT = Duration.ofMillis(400);

	private final Hangs hangs = new Hangs();

	private final List<ConnectionPool<?>> pools = new CopyOnWriteArrayList<>();

	@AfterEach
	void release() {
		this.hangs.releaseAll();
		this.pools.forEach(ConnectionPool::close);
	}

	/**
	 * docs/pools.md: "Work that never got a thread before the deadline never starts, and its
	 * connection goes back unused." Its task stays queued for a thread; when it gets one, the
	 * connection may be closed since (here by the pool's max-idle-time eviction), and the task must
	 * not hold it and let go, which closed it a second time.
	 */
	@Test
	void aConnectionGivenBackByWorkThatNeverGotAThreadIsNotDestroyedTwice() throws Exception {
		CountingFactory factory = new CountingFactory();
		// two worker threads, as a pool of one has on Java 17
		ThreadPoolExecutor workers = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
		DeadlinePool<Integer> pool = track(new DeadlinePool<>("dd", factory,
				ConnectionPoolSettings.builder().maxSize(1).maxIdleTime(Duration.ofMillis(200)).build(), Ticker.system(),
				List.of(), ContextSnapshotFactory.builder().build(), workers));
		// Two calls hang past their deadline and hold both worker threads.
		Hang hang = this.hangs.hang(2);
		for (int i = 0; i < 2; i++) {
			assertThatExceptionOfType(OperationTimeoutException.class)
				.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> hang.hang()));
		}
		assertThat(hang.entered.getCount()).isZero();
		// A third call gets connection 3 but no thread: its work is queued, never runs, and the
		// connection goes back unused at the deadline.
		AtomicBoolean ran = new AtomicBoolean();
		assertThatExceptionOfType(OperationTimeoutException.class)
			.isThrownBy(() -> pool.withConnection(SHORT, (connection) -> ran.getAndSet(true)));
		assertThat(pool.getStats().idle()).isOne();
		// Idle past max-idle-time, the pool's eviction closes that connection, once: the only one
		// closed before the hung work lets go. Which one it is depends on whether the third call
		// took a replacement made for it or made its own (a loaded machine saw either).
		await().atMost(Duration.ofSeconds(20))
			.untilAsserted(() -> assertThat(factory.destroyedIds)
				.as("closed, of %s made; %s", factory.created, pool)
				.hasSize(1));
		int evicted = factory.destroyedIds.iterator().next();
		assertThat(factory.destroyed).hasValue(1);
		// The hung work ends: threads free, the queued call's task finally runs (and does nothing).
		hang.release();
		await().atMost(Duration.ofSeconds(20)).until(() -> pool.getStats().abandoned() == 0);
		// the two hung calls and the queued one have run to their end
		await().atMost(Duration.ofSeconds(20)).until(() -> workers.getCompletedTaskCount() == 3);
		assertThat(ran).isFalse();
		// The two connections whose work timed out and the evicted one, each destroyed exactly once.
		assertThat(factory.destroyed).as("destroy calls: %s", factory.destroyThreads).hasValue(3);
		assertThat(factory.destroyedIds).hasSize(3).contains(1, 2, evicted);
	}

	/**
	 * ConnectionPool#withConnection: "@throws IllegalStateException if the pool is closed"; the
	 * CancellationException (with the interrupt flag set again) is for a caller interrupted while
	 * it waits. Commons Pool's close interrupts the threads waiting in it, but nobody interrupted
	 * the caller: its thread is left as it was.
	 */
	@Test
	void aCallerWaitingForAConnectionWhenThePoolClosesGetsIllegalStateAndIsNotInterrupted() throws Exception {
		CountingFactory factory = new CountingFactory();
		ConnectionPool<Integer> pool = track(ConnectionPool.builder("closing", factory)
			.settings(ConnectionPoolSettings.builder().maxSize(1).build())
			.build());
		Hang hang = this.hangs.hang(1);
		Thread holder = new Thread(() -> {
			try {
				pool.withConnection(Duration.ofSeconds(30), (connection) -> hang.hang());
			}
			catch (Throwable ex) {
				// closed under it
			}
		});
		holder.start();
		assertThat(hang.entered.await(10, TimeUnit.SECONDS)).isTrue();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicBoolean interrupted = new AtomicBoolean();
		Thread waiter = new Thread(() -> {
			try {
				pool.withConnection(Duration.ofSeconds(30), (connection) -> connection);
			}
			catch (Throwable ex) {
				failure.set(ex);
			}
			interrupted.set(Thread.currentThread().isInterrupted());
		});
		waiter.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> pool.getStats().pending() == 1);
		pool.close();
		waiter.join(10_000);
		assertThat(waiter.isAlive()).isFalse();
		// (CancellationException extends IllegalStateException, so the class and message are compared.)
		assertThat(failure.get().getClass().getSimpleName() + ": " + failure.get().getMessage() + ", interrupted="
				+ interrupted.get()).isEqualTo("IllegalStateException: Pool 'closing' is closed, interrupted=false");
		hang.release();
		holder.join(10_000);
	}

	private <P extends ConnectionPool<?>> P track(P pool) {
		this.pools.add(pool);
		return pool;
	}

}
