package dev.resilience.retry;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a delay stops fitting a {@code long} of nanoseconds: beyond it every delay is the cap
 * (as {@code BackoffPolicyTests#farRetriesSaturateAtTheCapInsteadOfOverflowing} shows far out).
 */
class BackoffPolicyBoundaryTests {

	private static final Duration LONGEST_CAP = Duration.ofSeconds(Long.MAX_VALUE);

	@Test
	void aDelayOfTwoToTheSixtyThirdNanosecondsIsTheCap() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.EXPONENTIAL, Duration.ofNanos(1L << 62), 2.0, LONGEST_CAP);
		assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofNanos(1L << 62));
		assertThat(policy.delayAfter(2)).isEqualTo(LONGEST_CAP);
	}

	@Test
	void aDelayJustBelowItIsExact() {
		BackoffPolicy policy = new BackoffPolicy(Backoff.LINEAR, Duration.ofNanos(3L << 60), 2.0, LONGEST_CAP);
		assertThat(policy.delayAfter(2)).isEqualTo(Duration.ofNanos(6L << 60));
	}

}
