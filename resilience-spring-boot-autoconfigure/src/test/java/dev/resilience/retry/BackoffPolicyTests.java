package dev.resilience.retry;

import java.time.Duration;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/** The delay sequence of every {@link Backoff}, value by value. */
class BackoffPolicyTests {

	@Test
	void fixedRepeatsTheFirstDelay() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.FIXED, ms(250), 2.0, Duration.ofSeconds(10));
		assertThat(delays(policy, 4)).containsExactly(ms(250), ms(250), ms(250), ms(250));
	}

	@Test
	void linearGrowsByTheFirstDelayAsExWaitersDefault() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.LINEAR, ms(10), 2.0, Duration.ofSeconds(10));
		assertThat(delays(policy, 4)).containsExactly(ms(10), ms(20), ms(30), ms(40));
	}

	@Test
	void linearIgnoresTheMultiplier() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.LINEAR, ms(10), 3.0, Duration.ofSeconds(10));
		assertThat(delays(policy, 3)).containsExactly(ms(10), ms(20), ms(30));
	}

	@Test
	void exponentialMultipliesAsTheAgainCrateDoes() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.EXPONENTIAL, Duration.ofSeconds(1), 2.0, Duration.ofSeconds(60));
		assertThat(delays(policy, 4)).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4),
				Duration.ofSeconds(8));
	}

	@Test
	void exponentialTakesAFractionalMultiplier() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.EXPONENTIAL, ms(100), 1.5, Duration.ofSeconds(10));
		assertThat(delays(policy, 3)).containsExactly(ms(100), ms(150), ms(225));
	}

	@Test
	void everyDelayIsCappedAtMaxDelay() {
		BackoffPolicy exponential = new BackoffPolicy(Backoff.EXPONENTIAL, Duration.ofSeconds(1), 2.0, Duration.ofSeconds(5));
		assertThat(delays(exponential, 5)).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4),
				Duration.ofSeconds(5), Duration.ofSeconds(5));
		BackoffPolicy linear = new BackoffPolicy(Backoff.LINEAR, ms(10), 2.0, ms(25));
		assertThat(delays(linear, 3)).containsExactly(ms(10), ms(20), ms(25));
	}

	@Test
	void aDelayReachingTheCapExactlyIsTheCap() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.LINEAR, ms(10), 2.0, ms(30));
		assertThat(policy.delayAfter(3)).isEqualTo(ms(30));
		assertThat(policy.delayAfter(4)).isEqualTo(ms(30));
	}

	@Test
	void farRetriesSaturateAtTheCapInsteadOfOverflowing() {
		BackoffPolicy exponential = new BackoffPolicy(Backoff.EXPONENTIAL, Duration.ofSeconds(1), 10.0, Duration.ofDays(1));
		assertThat(exponential.delayAfter(Integer.MAX_VALUE)).isEqualTo(Duration.ofDays(1));
		BackoffPolicy linear = new BackoffPolicy(Backoff.LINEAR, Duration.ofDays(1), 2.0, Duration.ofSeconds(Long.MAX_VALUE));
		assertThat(linear.delayAfter(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(Long.MAX_VALUE));
		assertThat(linear.delayAfter(2)).isEqualTo(Duration.ofDays(2));
	}

	@Test
	void zeroDelayStaysZero() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.EXPONENTIAL, Duration.ZERO, 2.0, Duration.ZERO);
		assertThat(delays(policy, 3)).containsOnly(Duration.ZERO);
	}

	@Test
	void delaysAreNumberedFromOne() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.FIXED, ms(10), 2.0, ms(10));
		assertThatIllegalArgumentException().isThrownBy(() -> policy.delayAfter(0)).withMessageContaining("number 1")
			.withMessageContaining("0 was asked for");
	}

	@Test
	void badSettingsAreRejectedNamingTheSetting() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new BackoffPolicy(Backoff.FIXED, ms(-1), 2.0, ms(10)))
			.withMessage("delay must not be negative, but was -1ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new BackoffPolicy(Backoff.FIXED, ms(10), 0.5, ms(10)))
			.withMessage("multiplier must be a finite number of at least 1, but was 0.5");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new BackoffPolicy(Backoff.FIXED, ms(10), Double.NaN, ms(10)))
			.withMessageStartingWith("multiplier");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new BackoffPolicy(Backoff.FIXED, ms(10), Double.POSITIVE_INFINITY, ms(10)))
			.withMessageStartingWith("multiplier");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new BackoffPolicy(Backoff.FIXED, ms(20), 2.0, ms(10)))
			.withMessage("max-delay (10ms) must not be shorter than delay (20ms)");
		assertThatNullPointerException().isThrownBy(() -> new BackoffPolicy(null, ms(10), 2.0, ms(10)))
			.withMessage("backoff");
		assertThatNullPointerException().isThrownBy(() -> new BackoffPolicy(Backoff.FIXED, null, 2.0, ms(10)))
			.withMessage("delay");
		assertThatNullPointerException().isThrownBy(() -> new BackoffPolicy(Backoff.FIXED, ms(10), 2.0, null))
			.withMessage("maxDelay");
	}

	@Test
	void aMultiplierOfOneAndAMaxDelayEqualToTheDelayAreAllowed() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.EXPONENTIAL, ms(10), 1.0, ms(10));
		assertThat(delays(policy, 3)).containsOnly(ms(10));
	}

	private static Duration[] delays(BackoffPolicy policy, int count) {
		return IntStream.rangeClosed(1, count).mapToObj(policy::delayAfter).toArray(Duration[]::new);
	}

	private static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

}
