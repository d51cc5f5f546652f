package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pacing rule of attempts to connect ({@link ConnectPacing}), exactly: one attempt in flight at
 * most, gaps of 100 ms doubling up to the cap, and the cap made of {@code connect-timeout}.
 */
class ConnectPacingTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	@Test
	void theFirstAttemptStartsAtOnceAndNoOtherWhileItIsInFlight() {
		ConnectPacing started = ConnectPacing.READY.start(0);
		assertThat(started).isEqualTo(new ConnectPacing(true, 0, 0));
		assertThat(started.start(0)).isNull();
		assertThat(started.start(Long.MAX_VALUE)).isNull();
	}

	@Test
	void gapsAfterFailuresDoubleFromOneHundredMillisecondsUpToTheCap() {
		long cap = ConnectPacing.cap(Duration.ofSeconds(2));
		ConnectPacing pacing = ConnectPacing.READY;
		long now = 1_000 * MS;
		List<Long> gaps = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			pacing = pacing.start(now).failed(now, cap);
			long gap = pacing.nanosUntilNext(now);
			gaps.add(gap / MS);
			// not a nanosecond before the gap has passed, at once after it
			assertThat(pacing.start(now + gap - 1)).isNull();
			assertThat(pacing.start(now + gap)).isNotNull();
			now += gap + 7 * MS; // the attempt itself takes a while: the gap runs from its failure
		}
		assertThat(gaps).containsExactly(100L, 200L, 400L, 800L, 1600L, 2000L, 2000L);
	}

	@Test
	void aFailureAfterManyKeepsTheCapWithoutOverflow() {
		long cap = ConnectPacing.cap(Duration.ZERO);
		ConnectPacing pacing = new ConnectPacing(false, Integer.MAX_VALUE - 1, 0);
		assertThat(pacing.start(0).failed(0, cap).nanosUntilNext(0)).isEqualTo(5_000 * MS);
	}

	@Test
	void theGapRunsOnATickerThatMayBeNegativeOrWrap() {
		long cap = ConnectPacing.cap(Duration.ofSeconds(1));
		ConnectPacing failed = ConnectPacing.READY.start(Long.MAX_VALUE - 50 * MS).failed(Long.MAX_VALUE - 50 * MS, cap);
		assertThat(failed.start(Long.MAX_VALUE)).isNull();
		assertThat(failed.start(Long.MAX_VALUE + 50 * MS)).isNotNull();
		// no failure yet: an attempt starts whatever the reading, a negative one too (System.nanoTime)
		assertThat(ConnectPacing.READY.start(Long.MIN_VALUE)).isNotNull();
		assertThat(ConnectPacing.READY.start(-1)).isNotNull();
	}

	@Test
	void aSuccessOrNoAttemptYetNeedsNoWait() {
		assertThat(ConnectPacing.READY.nanosUntilNext(123)).isZero();
		ConnectPacing failed = ConnectPacing.READY.start(0).failed(0, ConnectPacing.cap(Duration.ofSeconds(2)));
		assertThat(failed.nanosUntilNext(30 * MS)).isEqualTo(70 * MS);
		assertThat(failed.nanosUntilNext(130 * MS)).isZero();
	}

	@Test
	void theCapIsTheConnectTimeoutWithinOneHundredMillisecondsAndFiveSeconds() {
		assertThat(ConnectPacing.cap(Duration.ofMillis(200))).isEqualTo(200 * MS);
		assertThat(ConnectPacing.cap(Duration.ofSeconds(2))).isEqualTo(2_000 * MS);
		assertThat(ConnectPacing.cap(Duration.ofSeconds(5))).isEqualTo(5_000 * MS);
		assertThat(ConnectPacing.cap(Duration.ofSeconds(30))).isEqualTo(5_000 * MS);
		assertThat(ConnectPacing.cap(Duration.ofMillis(10))).isEqualTo(100 * MS);
		// zero: startup does not wait, and attempts go on at most every 5 s
		assertThat(ConnectPacing.cap(Duration.ZERO)).isEqualTo(5_000 * MS);
	}

	@Test
	void aConnectTimeoutOfTwoHundredMillisecondsGivesTheIssuesReproductionFifteenAttemptsInThreeSeconds() {
		// issue 36: a Redis that accepts and drops, connect-timeout 200 ms, decisions for 3 s; each
		// attempt fails at once (here), so attempts start at 0, 100, 300, 500, ... 2900 ms
		long cap = ConnectPacing.cap(Duration.ofMillis(200));
		ConnectPacing pacing = ConnectPacing.READY;
		int attempts = 0;
		for (long now = 0; now < 3_000 * MS; now += MS) { // a decision every millisecond
			ConnectPacing started = pacing.start(now);
			if (started != null) {
				attempts++;
				pacing = started.failed(now, cap);
			}
		}
		assertThat(attempts).isEqualTo(16);
	}

}
