package dev.resilience.poll;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.Sleeper;
import dev.resilience.retry.Backoff;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One poller shared by many threads, cancellation racing the scheduler, and a real interrupt of
 * a real sleep.
 */
class PollerConcurrencyTests {

	@Test
	void onePollerServesManyThreadsEachPollOnItsOwn() throws Exception {
		ManualTicker ticker = new ManualTicker();
		ThreadLocal<AtomicInteger> calls = ThreadLocal.withInitial(AtomicInteger::new);
		LongAdder fulfilled = new LongAdder();
		LongAdder attempts = new LongAdder();
		Poller<Integer> poller = Poller.builder(() -> calls.get().incrementAndGet(), (count) -> count % 3 == 0)
			.ticker(ticker)
			.sleeper(ticker.sleeper())
			.listener((name, history) -> {
				fulfilled.increment();
				attempts.add(history.attempts().size());
			})
			.build();
		int threads = 8;
		int pollsPerThread = 500;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		CountDownLatch start = new CountDownLatch(1);
		try {
			List<Future<Boolean>> results = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				results.add(executor.submit(() -> {
					start.await();
					boolean allThird = true;
					for (int i = 1; i <= pollsPerThread; i++) {
						allThird &= poller.await() == 3 * i;
					}
					return allThird;
				}));
			}
			start.countDown();
			for (Future<Boolean> result : results) {
				assertThat(result.get(30, TimeUnit.SECONDS)).isTrue();
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(fulfilled.sum()).isEqualTo(threads * pollsPerThread);
		assertThat(attempts.sum()).isEqualTo(3L * threads * pollsPerThread);
	}

	@Test
	void aCancelledPollMakesAtMostTheAttemptAlreadyRunning() throws Exception {
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(4);
		scheduler.setRemoveOnCancelPolicy(true);
		try {
			int polls = 200;
			List<AtomicInteger> calls = new ArrayList<>();
			List<CompletableFuture<Object>> futures = new ArrayList<>();
			for (int i = 0; i < polls; i++) {
				AtomicInteger count = new AtomicInteger();
				calls.add(count);
				futures.add(Poller.builder(() -> {
					count.incrementAndGet();
					return null;
				}).backoff(Backoff.FIXED).delay(Duration.ofMillis(1)).maxAttempts(PollSettings.UNLIMITED)
					.timeout(Duration.ofMinutes(1)).build().awaitAsync(scheduler));
			}
			int[] atCancel = new int[polls];
			for (int i = 0; i < polls; i++) {
				while (calls.get(i).get() < 2) {
					Thread.onSpinWait();
				}
				assertThat(futures.get(i).cancel(false)).isTrue();
				atCancel[i] = calls.get(i).get();
			}
			// Every attempt still due was cancelled with its poll: nothing is left to run.
			scheduler.shutdown();
			assertThat(scheduler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
			for (int i = 0; i < polls; i++) {
				assertThat(calls.get(i).get()).isBetween(atCancel[i], atCancel[i] + 1);
			}
		}
		finally {
			scheduler.shutdownNow();
		}
	}

	@Test
	void anInterruptEndsARealSleepAtOnce() throws Exception {
		CountDownLatch firstAttempt = new CountDownLatch(1);
		AtomicInteger calls = new AtomicInteger();
		Poller<Object> poller = Poller.builder(() -> {
			calls.incrementAndGet();
			firstAttempt.countDown();
			return null;
		}).backoff(Backoff.FIXED).delay(Duration.ofHours(1)).maxDelay(Duration.ofHours(1)).sleeper(Sleeper.system()).build();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicReference<Boolean> interrupted = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				poller.await();
			}
			catch (Throwable ex) {
				failure.set(ex);
				interrupted.set(Thread.currentThread().isInterrupted());
			}
		});
		waiter.start();
		assertThat(firstAttempt.await(30, TimeUnit.SECONDS)).isTrue();

		waiter.interrupt();
		waiter.join(TimeUnit.SECONDS.toMillis(30));

		assertThat(waiter.isAlive()).isFalse();
		assertThat(failure.get()).isInstanceOf(CancellationException.class);
		assertThat(interrupted.get()).isTrue();
		assertThat(calls).hasValue(1);
	}

}
