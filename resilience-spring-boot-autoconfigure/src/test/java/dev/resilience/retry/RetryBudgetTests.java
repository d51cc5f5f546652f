package dev.resilience.retry;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.resilience.ManualTicker;
import dev.resilience.Ticker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The retry budget: exact counts on a manual clock, sliding out of the window bucket by bucket,
 * and storms of callers. A 10 s window is cut into buckets of 100 ms.
 */
class RetryBudgetTests {

	private final ManualTicker ticker = new ManualTicker(7_000_000_000L);

	@Test
	void aQuietServiceMayRetryTheReserve() {
		RetryBudget budget = budget(0.2, 10, 1);
		assertThat(budget.available()).isEqualTo(10);
		for (int i = 0; i < 10; i++) {
			assertThat(budget.tryRetry()).isTrue();
		}
		assertThat(budget.tryRetry()).isFalse();
		assertThat(budget.available()).isZero();
	}

	@Test
	void firstAttemptsDepositTheRatio() {
		RetryBudget budget = budget(0.1, 10, 0);
		for (int i = 0; i < 29; i++) {
			budget.recordFirstAttempt();
		}
		assertThat(budget.available()).isEqualTo(2);
		budget.recordFirstAttempt();
		assertThat(budget.available()).isEqualTo(3);
		assertThat(budget.tryRetry()).isTrue();
		assertThat(budget.available()).isEqualTo(2);
	}

	@Test
	void attemptsLeaveTheWindow() {
		RetryBudget budget = budget(1, 10, 0);
		budget.recordFirstAttempt();
		this.ticker.advance(Duration.ofSeconds(5));
		budget.recordFirstAttempt();
		assertThat(budget.tryRetry()).isTrue();
		assertThat(budget.available()).isEqualTo(1);
		this.ticker.advance(Duration.ofSeconds(5));
		// The first attempt has left; the retry made 5s ago still counts.
		assertThat(budget.available()).isZero();
		this.ticker.advance(Duration.ofSeconds(5));
		// The retry has left too; the second attempt's deposit with it.
		assertThat(budget.available()).isZero();
		budget.recordFirstAttempt();
		assertThat(budget.available()).isEqualTo(1);
	}

	@Test
	void reserveIsPerSecondOfTheWindow() {
		assertThat(new RetryBudgetSettings(0.2, Duration.ofMillis(2500), 4).reserve()).isEqualTo(10);
		assertThat(new RetryBudgetSettings(0.2, Duration.ofSeconds(10), 0).reserve()).isZero();
	}

	@Test
	void reserveRoundsUpSoAQuietServiceKeepsWhatItWasPromised() {
		assertThat(new RetryBudgetSettings(0.2, Duration.ofMillis(500), 1).reserve()).isEqualTo(1);
		assertThat(new RetryBudgetSettings(0.2, Duration.ofMillis(2100), 3).reserve()).isEqualTo(7);
		assertThat(new RetryBudgetSettings(0.2, Duration.ofNanos(1), Integer.MAX_VALUE).reserve()).isEqualTo(3);
		assertThat(new RetryBudgetSettings(0.2, Duration.ofSeconds(Long.MAX_VALUE), 2).reserve()).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void settingsAreChecked() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudgetSettings(-0.1, Duration.ofSeconds(1), 1))
			.withMessage("ratio must be a finite number of at least 0, but was -0.1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RetryBudgetSettings(Double.NaN, Duration.ofSeconds(1), 1))
			.withMessageStartingWith("ratio");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudgetSettings(0.1, Duration.ZERO, 1))
			.withMessage("window must be positive, but was 0ms");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudgetSettings(0.1, Duration.ofSeconds(-1), 1))
			.withMessageStartingWith("window");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudgetSettings(0.1, Duration.ofSeconds(1), -1))
			.withMessage("min-retries-per-second must not be negative, but was -1");
		assertThat(new RetryBudgetSettings(0, Duration.ofNanos(1), 0).ratio()).isZero();
	}

	@Test
	void aFirstAttemptDepositsUntilItsWholeBucketHasLeft() {
		// Made 50 ms into the first bucket: the exact rule keeps it until 10.05 s, the budget until
		// the bucket's start leaves, at 10 s. Never later: it may only refuse early.
		RetryBudget budget = budget(1, 10, 0);
		this.ticker.advance(Duration.ofMillis(50));
		budget.recordFirstAttempt();
		this.ticker.advance(Duration.ofNanos(9_950_000_000L - 1));
		assertThat(budget.available()).isEqualTo(1);
		this.ticker.advanceNanos(1);
		assertThat(budget.available()).isZero();
	}

	@Test
	void aRetryCountsUntilTheLatestOfItsBucketHasLeft() {
		// 5 retries at 10 ms and 5 at 90 ms: the exact rule frees the first 5 at 10.01 s, the
		// budget frees all 10 at 10.09 s, when the latest of their bucket leaves. Never earlier.
		RetryBudget budget = budget(0, 10, 1);
		this.ticker.advance(Duration.ofMillis(10));
		retry(budget, 5);
		this.ticker.advance(Duration.ofMillis(80));
		retry(budget, 5);
		assertThat(budget.tryRetry()).isFalse();
		this.ticker.advance(Duration.ofNanos(10_000_000_000L - 1));
		assertThat(budget.available()).isZero();
		assertThat(budget.tryRetry()).isFalse();
		this.ticker.advanceNanos(1);
		assertThat(budget.available()).isEqualTo(10);
	}

	@Test
	void retriesLeaveOneByOneBucketsApart() {
		RetryBudget budget = budget(0, 10, 1);
		for (int i = 0; i < 10; i++) {
			assertThat(budget.tryRetry()).isTrue();
			this.ticker.advance(Duration.ofMillis(250));
		}
		// At 10 s the retry made at 0 has left, at 10.25 s the one made at 0.25 s.
		this.ticker.advanceNanos(7_500_000_000L - 1);
		assertThat(budget.available()).isZero();
		this.ticker.advanceNanos(1);
		assertThat(budget.available()).isEqualTo(1);
		this.ticker.advance(Duration.ofMillis(250));
		assertThat(budget.available()).isEqualTo(2);
		assertThat(budget.tryRetry()).isTrue();
		assertThat(budget.available()).isEqualTo(1);
	}

	@Test
	void theWindowSlidesBucketByBucket() {
		// One first attempt every 100 ms deposits 1; the window holds 100 of them at most.
		RetryBudget budget = budget(1, 10, 0);
		for (int i = 0; i < 150; i++) {
			budget.recordFirstAttempt();
			assertThat(budget.available()).isEqualTo(Math.min(i + 1, 100));
			this.ticker.advance(Duration.ofMillis(100));
		}
		assertThat(budget.available()).isEqualTo(99);
		retry(budget, 99);
		assertThat(budget.tryRetry()).isFalse();
		// Each bucket that leaves takes a deposit; the retries, all made now, stay.
		this.ticker.advance(Duration.ofSeconds(5));
		assertThat(budget.available()).isZero();
		this.ticker.advance(Duration.ofSeconds(5));
		assertThat(budget.available()).isZero();
		budget.recordFirstAttempt();
		assertThat(budget.available()).isEqualTo(1);
	}

	@Test
	void aLongIdleGapEmptiesEveryBucket() {
		RetryBudget budget = budget(0.5, 10, 1);
		for (int i = 0; i < 40; i++) {
			budget.recordFirstAttempt();
		}
		retry(budget, 30);
		assertThat(budget.available()).isZero();
		this.ticker.advance(Duration.ofHours(1));
		assertThat(budget.available()).isEqualTo(10);
		budget.recordFirstAttempt();
		budget.recordFirstAttempt();
		assertThat(budget.tryRetry()).isTrue();
		assertThat(budget.available()).isEqualTo(10);
	}

	@Test
	void aGapShorterThanTheWindowKeepsWhatIsStillInside() {
		RetryBudget budget = budget(1, 10, 0);
		budget.recordFirstAttempt();
		this.ticker.advance(Duration.ofSeconds(3));
		budget.recordFirstAttempt();
		budget.recordFirstAttempt();
		assertThat(budget.tryRetry()).isTrue();
		this.ticker.advance(Duration.ofMillis(6900));
		assertThat(budget.available()).isEqualTo(2);
		this.ticker.advance(Duration.ofMillis(100));
		assertThat(budget.available()).isEqualTo(1);
		this.ticker.advance(Duration.ofSeconds(3));
		assertThat(budget.available()).isZero();
	}

	/**
	 * 250 ns cut evenly into buckets of 2 ns: a first attempt at a bucket's start and a retry
	 * anywhere leave exactly when the exact rule says. 1,001 ns in buckets of 10 ns, not cut evenly:
	 * the first attempt at 0 deposits until 1,000, 1 ns short, and the retry at 5 counts until
	 * 1,006, exactly.
	 */
	@ParameterizedTest
	@CsvSource({ "250, 3, 246, 2", "1001, 5, 994, 5" })
	void depositsLeaveNoLaterThanExactAndRetriesLeaveExactly(long windowNanos, long retryAt, long depositsFor,
			long retryCountsFor) {
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(1, Duration.ofNanos(windowNanos), 0),
				this.ticker);
		budget.recordFirstAttempt();
		budget.recordFirstAttempt();
		this.ticker.advanceNanos(retryAt);
		assertThat(budget.tryRetry()).isTrue();
		this.ticker.advanceNanos(depositsFor);
		assertThat(budget.available()).isEqualTo(1);
		this.ticker.advanceNanos(1);
		assertThat(budget.available()).isZero();
		budget.recordFirstAttempt();
		this.ticker.advanceNanos(retryCountsFor);
		assertThat(budget.available()).isZero();
		this.ticker.advanceNanos(1);
		assertThat(budget.available()).isEqualTo(1);
	}

	@Test
	void twoBucketsMayLeaveDuringOneAndEachRetryLeavesOnTime() {
		// 1,005 ns in buckets of 10 ns: during the bucket from 1,010 both the retry made at 8
		// (first bucket) and the one made at 12 (second bucket) leave, at 1,013 and 1,017.
		RetryBudgetSettings settings = new RetryBudgetSettings(0, Duration.ofNanos(1005), 2_000_000);
		RetryBudget budget = new RetryBudget(settings, this.ticker);
		assertThat(budget.getSettings()).isSameAs(settings);
		assertThat(budget.available()).isEqualTo(3);
		this.ticker.advanceNanos(8);
		retry(budget, 1);
		this.ticker.advanceNanos(4);
		retry(budget, 1);
		this.ticker.advanceNanos(1000);
		assertThat(budget.available()).isEqualTo(1);
		this.ticker.advanceNanos(1);
		assertThat(budget.available()).isEqualTo(2);
		this.ticker.advanceNanos(3);
		assertThat(budget.available()).isEqualTo(2);
		this.ticker.advanceNanos(1);
		assertThat(budget.available()).isEqualTo(3);
	}

	@Test
	void aSealedBucketGrantsNoMoreAndKeepsItsCount() {
		RetryBudgetWindow window = RetryBudgetWindow.first(0, 100, 1000, 10);
		assertThat(window.grant(0, 5)).isTrue();
		assertThat(window.grant(0, 6)).isFalse();
		window.seal();
		window.seal();
		assertThat(window.retryWord()).isNegative();
		assertThat(window.retries()).isEqualTo(1);
		assertThat(window.grant(1, 7)).isFalse();
		RetryBudgetWindow empty = RetryBudgetWindow.first(0, 100, 1000, 10);
		empty.seal();
		assertThat(empty.retryWord()).isNegative();
		assertThat(empty.grant(0, 5)).isFalse();
		assertThat(empty.retries()).isZero();
	}

	/** A caller that read the word after the bucket was sealed is refused, and leaves its time out. */
	@Test
	void aGrantDecidedOnASealedWordIsRefused() {
		RetryBudgetWindow window = RetryBudgetWindow.first(0, 100, 1000, 10);
		assertThat(window.grant(0, 5)).isTrue();
		window.seal();
		long sealed = window.retryWord();
		assertThat(window.grant(sealed, 9)).isFalse();
		assertThat(window.retryWord()).isEqualTo(sealed);
		assertThat(window.retries()).isEqualTo(1);
		// The retry at 5 leaves the window at 1005; one at 9 would still count then.
		assertThat(window.next(100, 0, 1000, 10).spent(1005, 0, 1000)).isZero();
	}

	@Test
	void theRatioRoundsDownAndTheReserveIsAddedWhole() {
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(1.0 / 3, Duration.ofMillis(2100), 3),
				this.ticker);
		assertThat(budget.available()).isEqualTo(7);
		for (int i = 0; i < 5; i++) {
			budget.recordFirstAttempt();
		}
		assertThat(budget.available()).isEqualTo(8);
		budget.recordFirstAttempt();
		assertThat(budget.available()).isEqualTo(9);
	}

	@Test
	void aHugeReserveSaturatesInsteadOfOverflowing() {
		RetryBudget budget = new RetryBudget(
				new RetryBudgetSettings(1, Duration.ofSeconds(Long.MAX_VALUE), Integer.MAX_VALUE), this.ticker);
		budget.recordFirstAttempt();
		assertThat(budget.available()).isEqualTo(Long.MAX_VALUE);
		assertThat(budget.tryRetry()).isTrue();
		assertThat(budget.available()).isEqualTo(Long.MAX_VALUE - 1);
		this.ticker.advance(Duration.ofDays(365));
		assertThat(budget.available()).isEqualTo(Long.MAX_VALUE - 1);
	}

	@Test
	void aCallerThatReadTheClockBeforeTheBucketOpenedDecidesAsOfItsStart() {
		// The reading 9.95 s comes after another caller moved the budget to 10 s. As of 10 s the
		// retry made at 0 has left; as of 9.95 s it would still count.
		AtomicLong now = new AtomicLong(this.ticker.read());
		Ticker late = now::get;
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(0, Duration.ofSeconds(10), 1), late);
		retry(budget, 10);
		now.addAndGet(10_000_000_000L);
		assertThat(budget.available()).isEqualTo(10);
		now.addAndGet(-50_000_000L);
		assertThat(budget.available()).isEqualTo(10);
		retry(budget, 10);
		assertThat(budget.tryRetry()).isFalse();
		// Those retries count from 10 s, the bucket's start, not from 9.95 s.
		now.set(this.ticker.read() + 20_000_000_000L - 1);
		assertThat(budget.available()).isZero();
		now.incrementAndGet();
		assertThat(budget.available()).isEqualTo(10);
	}

	@Test
	void sixteenThreadsRecordEveryFirstAttemptAndGrantExactlyTheBudget() throws Exception {
		// Time stands still: 16 threads record 1,000 first attempts each, then race for retries.
		// 0.1 * 16,000 + 10 = 1,610 retries are granted, however they interleave, and no more.
		RetryBudget budget = budget(0.1, 10, 1);
		int threads = 16;
		concurrently(threads, () -> {
			for (int i = 0; i < 1000; i++) {
				budget.recordFirstAttempt();
			}
			return 0L;
		});
		assertThat(budget.available()).isEqualTo(1610);
		List<Long> granted = concurrently(threads, () -> {
			long mine = 0;
			for (int i = 0; i < 1000; i++) {
				mine += budget.tryRetry() ? 1 : 0;
			}
			return mine;
		});
		assertThat(granted.stream().mapToLong(Long::longValue).sum()).isEqualTo(1610);
		assertThat(budget.available()).isZero();
	}

	@Test
	void sixteenThreadsMixingFirstAttemptsAndRetriesNeverOverdrawTheBudget() throws Exception {
		RetryBudget budget = budget(0.2, 10, 0);
		int threads = 16;
		List<Long> granted = concurrently(threads, () -> {
			long mine = 0;
			for (int i = 0; i < 5000; i++) {
				budget.recordFirstAttempt();
				mine += budget.tryRetry() ? 1 : 0;
			}
			return mine;
		});
		long total = granted.stream().mapToLong(Long::longValue).sum();
		// 80,000 first attempts deposit 16,000: granted plus what is left is exactly that.
		assertThat(total).isLessThanOrEqualTo(16_000);
		assertThat(total + budget.available()).isEqualTo(16_000);
	}

	@Test
	void sixteenThreadsGrantExactlyTheBudgetWhileTheWindowSlides() throws Exception {
		// Every round moves the clock 300 ms (three buckets) and 16 threads each record 10 first
		// attempts, then race for retries. Ratio 0.5 of 160 first attempts grants 80 a round: a
		// round's retries are paid for by its own deposits once older rounds' leave with their
		// retries. Whichever thread moves the budget to the new bucket, no retry is lost or doubled.
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(0.5, Duration.ofSeconds(1), 0), this.ticker);
		int threads = 16;
		int rounds = 12;
		CyclicBarrier deposited = new CyclicBarrier(threads);
		CyclicBarrier nextRound = new CyclicBarrier(threads, () -> this.ticker.advance(Duration.ofMillis(300)));
		AtomicLong[] grantedByRound = new AtomicLong[rounds];
		for (int round = 0; round < rounds; round++) {
			grantedByRound[round] = new AtomicLong();
		}
		concurrently(threads, () -> {
			for (int round = 0; round < rounds; round++) {
				for (int i = 0; i < 10; i++) {
					budget.recordFirstAttempt();
				}
				deposited.await();
				while (budget.tryRetry()) {
					grantedByRound[round].incrementAndGet();
				}
				nextRound.await();
			}
			return 0L;
		});
		for (AtomicLong granted : grantedByRound) {
			assertThat(granted).hasValue(80);
		}
	}

	@Test
	void aStormOfFailingCallersMakesNoMoreRetriesThanTheBudgetAllows() throws Exception {
		// 200 callers fail at every attempt and would retry 1000 times; ratio 0.1 of 200 first
		// attempts plus 1 per second of a 10 s window allows 20 + 10 = 30 retries, however the
		// callers interleave: the caller whose first attempt comes last retries until none is left.
		RetryPolicy policy = RetryPolicy.builder()
			.maxRetries(1000)
			.jitter(Jitter.NONE)
			.budget(new RetryBudgetSettings(0.1, Duration.ofSeconds(10), 1))
			.build();
		AtomicInteger attempts = new AtomicInteger();
		AtomicInteger exhausted = new AtomicInteger();
		Retry retry = Retry.builder("storm", policy).ticker(this.ticker).sleeper((nanos) -> {
		}).listener(new RetryListener() {
			@Override
			public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> history) {
				if (outcome == RetryCallOutcome.FAILED_BUDGET_EXHAUSTED) {
					exhausted.incrementAndGet();
				}
			}
		}).build();
		int callers = 200;
		ExecutorService pool = Executors.newFixedThreadPool(16);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> futures = new ArrayList<>();
		for (int i = 0; i < callers; i++) {
			futures.add(pool.submit(() -> {
				start.await();
				try {
					retry.call(() -> {
						attempts.incrementAndGet();
						throw new IOException("down");
					});
				}
				catch (Throwable expected) {
					// every call fails
				}
				return null;
			}));
		}
		start.countDown();
		for (Future<?> future : futures) {
			future.get();
		}
		pool.shutdown();
		assertThat(attempts.get() - callers).isEqualTo(30);
		assertThat(exhausted).hasValue(callers);
	}

	private static void retry(RetryBudget budget, int times) {
		for (int i = 0; i < times; i++) {
			assertThat(budget.tryRetry()).isTrue();
		}
	}

	private static List<Long> concurrently(int threads, Callable<Long> task) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Long>> futures = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				futures.add(pool.submit(() -> {
					start.await();
					return task.call();
				}));
			}
			start.countDown();
			List<Long> results = new ArrayList<>();
			for (Future<Long> future : futures) {
				results.add(future.get());
			}
			return results;
		}
		finally {
			pool.shutdown();
		}
	}

	private RetryBudget budget(double ratio, long windowSeconds, int minRetriesPerSecond) {
		return new RetryBudget(new RetryBudgetSettings(ratio, Duration.ofSeconds(windowSeconds), minRetriesPerSecond),
				this.ticker);
	}

}
