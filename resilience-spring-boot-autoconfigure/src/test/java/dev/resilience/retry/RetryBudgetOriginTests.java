package dev.resilience.retry;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Only differences between readings mean something, as with {@link System#nanoTime()}: a budget
 * slides the same way whatever its ticker reads at the start, negative readings included.
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

}
