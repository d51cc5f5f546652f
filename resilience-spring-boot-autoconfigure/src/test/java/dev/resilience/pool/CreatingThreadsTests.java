package dev.resilience.pool;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link CreatingThreads} on its own: the threads it makes, and a caller that stops waiting for a
 * creation that has not started yet.
 */
class CreatingThreadsTests {

	@Test
	void itsThreadsAreNamedAfterThePoolAreDaemonsAndEndWhenIdle() throws Exception {
		ThreadPoolExecutor threads = (ThreadPoolExecutor) CreatingThreads.threads("p", 2);
		try {
			assertThat(threads.getMaximumPoolSize()).isEqualTo(2);
			assertThat(threads.allowsCoreThreadTimeOut()).isTrue();
			AtomicReference<Thread> made = new AtomicReference<>();
			threads.submit(() -> made.set(Thread.currentThread())).get(10, TimeUnit.SECONDS);
			assertThat(made.get().getName()).isEqualTo("resilience-pool-p-creator-1");
			assertThat(made.get().isDaemon()).isTrue();
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void aCallerThatStopsWaitingBeforeItsCreationStartedLeavesNothingQueued() throws Exception {
		ThreadPoolExecutor threads = (ThreadPoolExecutor) CreatingThreads.threads("p", 1);
		CountDownLatch busy = new CountDownLatch(1);
		try {
			// The one thread is taken: the caller's creation waits in the queue.
			threads.execute(() -> awaitQuietly(busy));
			CountingFactory factory = new CountingFactory();
			CreatingThreads<Integer> creating = new CreatingThreads<>(threads, factory, () -> {
			}, () -> new IllegalStateException("closed"));
			assertThatExceptionOfType(CreatingThreads.NotMade.class)
				.isThrownBy(() -> creating.make(Duration.ofMillis(50).toNanos()));
			assertThat(threads.getQueue()).isEmpty();
			busy.countDown();
			threads.shutdown();
			assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
			assertThat(factory.created).hasValue(0);
		}
		finally {
			busy.countDown();
			threads.shutdownNow();
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
