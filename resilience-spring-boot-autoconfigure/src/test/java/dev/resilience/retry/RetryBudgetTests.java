package dev.resilience.retry;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The retry budget: exact counts on a manual clock, sliding out of the window, and a storm of callers. */
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
			.withMessage("window must be positive, but was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudgetSettings(0.1, Duration.ofSeconds(-1), 1))
			.withMessageStartingWith("window");
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudgetSettings(0.1, Duration.ofSeconds(1), -1))
			.withMessage("minRetriesPerSecond must not be negative, but was -1");
		assertThat(new RetryBudgetSettings(0, Duration.ofNanos(1), 0).ratio()).isZero();
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

	private RetryBudget budget(double ratio, long windowSeconds, int minRetriesPerSecond) {
		return new RetryBudget(new RetryBudgetSettings(ratio, Duration.ofSeconds(windowSeconds), minRetriesPerSecond),
				this.ticker);
	}

}
