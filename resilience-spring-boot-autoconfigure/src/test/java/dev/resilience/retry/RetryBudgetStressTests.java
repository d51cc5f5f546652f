package dev.resilience.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.resilience.Ticker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Callers racing while the budget moves from bucket to bucket: a clock that moves on at every
 * reading makes the callers that cross into a new bucket move the budget together, so that one
 * loses the swap, and others decide on the bucket being sealed under them. 8 threads, 60 rounds
 * of about 90 moves each: a lost swap that is not handled shows as an exception, a retry granted
 * on a bucket already copied as one granted beyond the reserve.
 */
class RetryBudgetStressTests {

	private static final long WINDOW = 1_000_000_000L;

	/** A twentieth of a bucket (10 ms) per reading: a move every 20 readings. */
	private static final long STEP = 500_000;

	/** 1,800 readings and a few more take 0.9 s: no retry leaves the 1 s window during the race. */
	private static final int RESERVE = 1800;

	@Test
	void callersMovingTheBudgetTogetherGrantExactlyTheReserveAndEachRetryCountsForAWindow() throws Exception {
		int threads = 8;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 60; round++) {
				race(pool, threads);
			}
		}
		finally {
			pool.shutdown();
		}
	}

	private static void race(ExecutorService pool, int threads) throws Exception {
		long origin = -WINDOW;
		AtomicLong clock = new AtomicLong(origin);
		AtomicBoolean moving = new AtomicBoolean(true);
		ThreadLocal<long[]> lastRead = ThreadLocal.withInitial(() -> new long[1]);
		Ticker ticker = () -> {
			long read = moving.get() ? clock.addAndGet(STEP) : clock.get();
			lastRead.get()[0] = read;
			return read;
		};
		// min-retries-per-second over a 1 s window: the reserve, and nothing else to spend.
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(0, Duration.ofNanos(WINDOW), RESERVE), ticker);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<long[]>> futures = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			futures.add(pool.submit(() -> {
				start.await();
				long[] reads = new long[RESERVE + 1];
				int granted = 0;
				while (budget.tryRetry()) {
					reads[granted++] = lastRead.get()[0];
				}
				return Arrays.copyOf(reads, granted);
			}));
		}
		start.countDown();
		long[] reads = new long[0];
		for (Future<long[]> future : futures) {
			long[] mine = future.get(30, TimeUnit.SECONDS);
			int at = reads.length;
			reads = Arrays.copyOf(reads, at + mine.length);
			System.arraycopy(mine, 0, reads, at, mine.length);
		}
		assertThat(reads).hasSize(RESERVE);
		moving.set(false);
		long end = clock.get();
		assertThat(end - origin).isLessThan(WINDOW);
		// Never sooner than the exact rule: a window less 1 ns after a retry was made, it counts.
		Arrays.sort(reads);
		for (int i = 0; i < reads.length; i++) {
			if (i > 0 && reads[i] == reads[i - 1]) {
				continue;
			}
			clock.set(reads[i] + WINDOW - 1);
			assertThat(budget.available()).as("retries made at or after %d", reads[i])
				.isLessThanOrEqualTo(RESERVE - (reads.length - i));
		}
		clock.set(end + WINDOW);
		assertThat(budget.available()).isEqualTo(RESERVE);
	}

}
