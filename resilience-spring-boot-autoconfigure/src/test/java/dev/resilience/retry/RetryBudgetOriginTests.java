package dev.resilience.retry;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.resilience.ManualTicker;
import dev.resilience.Ticker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Only differences between readings mean something, as with {@link System#nanoTime()}: a budget
 * slides the same way whatever its ticker reads at the start, negative readings included, and
 * when the readings wrap around from {@link Long#MAX_VALUE} to {@link Long#MIN_VALUE}.
 */
class RetryBudgetOriginTests {

	@ParameterizedTest
	@ValueSource(longs = { 0, 7_000_000_000L, -7_000_000_000L, -1, Long.MIN_VALUE })
	void depositsAndRetriesLeaveAWindowLaterWhateverTheOrigin(long origin) {
		ManualTicker ticker = new ManualTicker(origin);
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(1, Duration.ofSeconds(10), 0), ticker);
		budget.recordFirstAttempt();
		budget.recordFirstAttempt();
		ticker.advance(Duration.ofSeconds(4));
		assertThat(budget.tryRetry()).isTrue();
		assertThat(budget.available()).isEqualTo(1);
		// At 10 s both deposits leave; the retry made at 4 s counts until 14 s.
		ticker.advanceNanos(6_000_000_000L - 1);
		assertThat(budget.available()).isEqualTo(1);
		ticker.advanceNanos(1);
		assertThat(budget.available()).isZero();
		budget.recordFirstAttempt();
		budget.recordFirstAttempt();
		ticker.advanceNanos(4_000_000_000L - 1);
		assertThat(budget.available()).isEqualTo(1);
		ticker.advanceNanos(1);
		assertThat(budget.available()).isEqualTo(2);
	}

	@Test
	void aBudgetStartingAtTheMostNegativeReadingSlidesBucketByBucket() {
		ManualTicker ticker = new ManualTicker(Long.MIN_VALUE);
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(1, Duration.ofSeconds(10), 0), ticker);
		for (int i = 0; i < 150; i++) {
			budget.recordFirstAttempt();
			assertThat(budget.available()).isEqualTo(Math.min(i + 1, 100));
			ticker.advance(Duration.ofMillis(100));
		}
	}

	@Test
	void aRetryMadeAfterTheReadingsWrapIsTheLatestOfItsBucket() {
		// The readings wrap 50 ms into the first bucket: the retry made at 90 ms reads negative,
		// and still counts until 10.09 s, not with the one made at 10 ms.
		ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - 50_000_000L);
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(0, Duration.ofSeconds(10), 1), ticker);
		ticker.advance(Duration.ofMillis(10));
		assertThat(budget.tryRetry()).isTrue();
		ticker.advance(Duration.ofMillis(80));
		assertThat(ticker.read()).isNegative();
		assertThat(budget.tryRetry()).isTrue();
		ticker.advanceNanos(10_000_000_000L - 1);
		assertThat(budget.available()).isEqualTo(8);
		ticker.advanceNanos(1);
		assertThat(budget.available()).isEqualTo(10);
	}

	@Test
	void aCallerThatReadTheClockBeforeTheWrapAndTheBucketDecidesAsOfTheBucketsStart() {
		// As RetryBudgetTests' caller reading 9.95 s after the budget moved to 10 s, with the
		// readings wrapping between the two: the retries count from 10 s, the later time.
		long origin = Long.MAX_VALUE - 9_990_000_000L;
		AtomicLong now = new AtomicLong(origin);
		Ticker late = now::get;
		RetryBudget budget = new RetryBudget(new RetryBudgetSettings(0, Duration.ofSeconds(10), 1), late);
		for (int i = 0; i < 10; i++) {
			assertThat(budget.tryRetry()).isTrue();
		}
		now.set(origin + 10_000_000_000L);
		assertThat(budget.available()).isEqualTo(10);
		now.set(origin + 9_950_000_000L);
		assertThat(now.get()).isPositive();
		for (int i = 0; i < 10; i++) {
			assertThat(budget.tryRetry()).isTrue();
		}
		now.set(origin + 20_000_000_000L - 1);
		assertThat(budget.available()).isZero();
		now.incrementAndGet();
		assertThat(budget.available()).isEqualTo(10);
	}

}
