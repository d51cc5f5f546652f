package dev.resilience.ratelimit.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitDecision.Quota;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

import static org.assertj.core.api.Assertions.assertThat;

/** All or nothing across the constraints of one limiter: a rejected call consumes nothing anywhere. */
class AllOrNothingTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void windowThatRejectsLeavesBucketAndOtherWindowUntouched() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(3, Duration.ofSeconds(1))
			.window(5, Duration.ofSeconds(10))
			.build());
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		assertThat(limiter.inspect("k").getQuotas()).extracting(Quota::remaining).containsExactly(7L, 0L, 2L);
		assertRejectedChangingNothing(limiter, Duration.ofSeconds(1));
	}

	@Test
	void wideWindowThatRejectsLeavesBucketAndNarrowWindowUntouched() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(3, Duration.ofSeconds(1))
			.window(5, Duration.ofSeconds(10))
			.build());
		for (int i = 0; i < 3; i++) {
			limiter.tryAcquire("k", 1);
		}
		this.ticker.set(Duration.ofSeconds(1));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.inspect("k").getQuotas()).extracting(Quota::remaining).containsExactly(8L, 1L, 0L);
		assertRejectedChangingNothing(limiter, Duration.ofSeconds(9));
		this.ticker.set(Duration.ofSeconds(10));
		RateLimitDecision later = limiter.tryAcquire("k", 1);
		assertThat(later.isPermitted()).isTrue();
		assertThat(later.getQuotas()).extracting(Quota::remaining).containsExactly(9L, 2L, 2L);
	}

	@Test
	void bucketThatRejectsLeavesWindowUntouched() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(2, 2, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(10, Duration.ofSeconds(1))
			.build());
		limiter.tryAcquire("k", 1);
		limiter.tryAcquire("k", 1);
		assertThat(limiter.inspect("k").getQuotas()).extracting(Quota::remaining).containsExactly(0L, 8L);
		assertRejectedChangingNothing(limiter, Duration.ofMillis(500));
	}

	@Test
	void rejectedExpensiveCallLeavesRoomForACheaperOne() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(10, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(3, Duration.ofSeconds(1))
			.build());
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isFalse();
		RateLimitDecision cheaper = limiter.tryAcquire("k", 1);
		assertThat(cheaper.isPermitted()).isTrue();
		assertThat(cheaper.getQuotas()).extracting(Quota::remaining).containsExactly(7L, 0L);
	}

	@Test
	void seedWindowsOf25Per5sAnd300Per60sRecordNothingForRejectedCalls() {
		RateLimiter limiter = limiter("seed", RateLimiterSettings.builder()
			.window(25, Duration.ofSeconds(5))
			.window(300, Duration.ofSeconds(60))
			.build());
		for (int round = 0; round < 12; round++) {
			this.ticker.set(Duration.ofSeconds(5L * round));
			for (int i = 0; i < 25; i++) {
				assertThat(limiter.tryAcquire("provider", 1).isPermitted()).isTrue();
			}
			RateLimitDecision before = limiter.inspect("provider");
			assertThat(before.getQuotas()).containsExactly(
					new Quota(Quota.Type.WINDOW, 25, Duration.ofSeconds(5), 0, Duration.ofSeconds(5)),
					new Quota(Quota.Type.WINDOW, 300, Duration.ofSeconds(60), 275 - 25L * round,
							Duration.ofSeconds(60 - 5L * round)));
			RateLimitDecision rejected = limiter.tryAcquire("provider", 1);
			assertThat(rejected.isPermitted()).isFalse();
			assertThat(rejected.getRetryAfter()).isEqualTo(Duration.ofSeconds(5));
			assertThat(limiter.inspect("provider").getQuotas()).isEqualTo(before.getQuotas());
		}
		// had the rejected calls left entries in the 60s window (as a script that adds before it checks does), fewer would fit now
		this.ticker.set(Duration.ofSeconds(60));
		int admitted = 0;
		while (limiter.tryAcquire("provider", 1).isPermitted()) {
			admitted++;
		}
		assertThat(admitted).isEqualTo(25);
	}

	private static void assertRejectedChangingNothing(RateLimiter limiter, Duration retryAfter) {
		RateLimitDecision before = limiter.inspect("k");
		RateLimitDecision rejected = limiter.tryAcquire("k", 1);
		assertThat(rejected.isPermitted()).isFalse();
		assertThat(rejected.getRetryAfter()).isEqualTo(retryAfter);
		assertThat(limiter.inspect("k").getQuotas()).isEqualTo(before.getQuotas());
	}

	private RateLimiter limiter(RateLimiterSettings settings) {
		return limiter("api", settings);
	}

	private RateLimiter limiter(String name, RateLimiterSettings settings) {
		return TestLimiters.onManualClock(this.ticker, name, settings);
	}

}
