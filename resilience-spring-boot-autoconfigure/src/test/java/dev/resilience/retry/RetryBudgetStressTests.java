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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.resilience.Ticker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Callers racing while the budget moves from bucket to bucket: a clock that moves on at every
 * reading makes the callers that cross into a new bucket move the budget together, so that one
 * loses the swap, and others decide on the bucket being sealed under them. 8 threads, 60 rounds
 * of about 90 moves each: a lost swap that is not handled shows as an exception, a retry granted
 * on a bucket already copied as one granted beyond the reserve. The bucket's own races (a seal
 * against grants, two grants' times) are driven on {@link RetryBudgetWindow} directly.
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

	@Test
	void aBucketSealedWhileCallersRaceToGrantIsSealed() throws Exception {
		// Two callers grant retry after retry on the current bucket while it is sealed 20,000
		// times over: a seal that loses its compare-and-set to a grant must try again, or the
		// bucket would go on granting retries that the next bucket never counts.
		AtomicReference<RetryBudgetWindow> current = new AtomicReference<>(RetryBudgetWindow.first(0, 1, 100, 1));
		AtomicBoolean done = new AtomicBoolean();
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			List<Future<?>> granters = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				granters.add(pool.submit(() -> {
					while (!done.get()) {
						RetryBudgetWindow window = current.get();
						long word = window.retryWord();
						if (word >= 0) {
							window.grant(word, 0);
						}
					}
				}));
			}
			for (int i = 0; i < 20_000; i++) {
				RetryBudgetWindow window = RetryBudgetWindow.first(0, 1, 100, 1);
				current.set(window);
				while (window.retries() < 3) {
					Thread.onSpinWait();
				}
				window.seal();
				long retries = window.retries();
				assertThat(window.retryWord()).isNegative();
				current.set(RetryBudgetWindow.first(0, 1, 100, 1));
				// A caller that read the word before the seal cannot add to the count after it.
				assertThat(window.retries()).isEqualTo(retries);
			}
			done.set(true);
			for (Future<?> granter : granters) {
				granter.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			done.set(true);
			pool.shutdown();
		}
	}

	@Test
	void twoRetriesGrantedTogetherLeaveTheLaterOneAsTheBucketsLatest() throws Exception {
		// Two callers meet at a spinning barrier, then grant a retry on the same fresh bucket at
		// 5 and at 6, 5,000 times over. Whichever lands first, the bucket's latest retry is 6:
		// a window later, at 1,005, its retries still count.
		int rounds = 5000;
		RetryBudgetWindow[] windows = new RetryBudgetWindow[rounds];
		for (int i = 0; i < rounds; i++) {
			windows[i] = RetryBudgetWindow.first(0, 100, 1000, 10);
		}
		AtomicInteger arrived = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			List<Future<?>> callers = new ArrayList<>();
			for (long at = 5; at <= 6; at++) {
				long mine = at;
				callers.add(pool.submit(() -> {
					for (int i = 0; i < rounds; i++) {
						arrived.incrementAndGet();
						while (arrived.get() < 2 * (i + 1)) {
							Thread.onSpinWait();
						}
						windows[i].grant(windows[i].retryWord(), mine);
					}
				}));
			}
			for (Future<?> caller : callers) {
				caller.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdown();
		}
		for (RetryBudgetWindow window : windows) {
			window.seal();
			RetryBudgetWindow later = window.next(100, 0, 1000, 10);
			assertThat(later.spent(1005, 0, 1000)).isEqualTo(window.retries()).isPositive();
			assertThat(later.spent(1006, 0, 1000)).isZero();
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
