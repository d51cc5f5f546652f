package dev.resilience.ratelimit.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

import static org.assertj.core.api.Assertions.assertThat;

/** The token bucket as a limiter applies it: every admitted call goes through a reservation. */
class TokenBucketLimiterTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void limiterBucketStartsFullForEveryNewKey() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(10, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		assertThat(limiter.inspect("new").getQuotas()).containsExactly(
				new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.TOKEN_BUCKET, 10, Duration.ofSeconds(10), 10, Duration.ZERO));
		assertThat(limiter.tryAcquire("new", 10).getRemaining()).isZero();
		assertThat(limiter.tryAcquire("other", 10).isPermitted()).isTrue();
	}

	@Test
	void limiterBucketKeepsIntervalGridWhenAdmittingMidPeriod() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofMillis(100), RefillStrategy.INTERVAL)
			.build());
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(150));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(200).minusNanos(1));
		RateLimitDecision early = limiter.tryAcquire("k", 1);
		assertThat(early.isPermitted()).isFalse();
		assertThat(early.getRetryAfter()).isEqualTo(Duration.ofNanos(1));
		this.ticker.set(Duration.ofMillis(200));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
	}

	@Test
	void limiterBucketKeepsIntervalGridWhenARefillFillsTheBucket() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofMillis(100), RefillStrategy.INTERVAL)
			.build());
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(150));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(200).minusNanos(1));
		assertThat(limiter.tryAcquire("k", 1).getRetryAfter()).isEqualTo(Duration.ofNanos(1));
	}

	@Test
	void limiterBucketKeepsGreedyFractionWhenAdmitting() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		assertThat(limiter.tryAcquire("k", 10).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(250));
		RateLimitDecision decision = limiter.tryAcquire("k", 2);
		assertThat(decision.isPermitted()).isTrue();
		assertThat(decision.getQuotas()).containsExactly(
				new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.TOKEN_BUCKET, 10, Duration.ofSeconds(1), 0, Duration.ofMillis(50)));
		this.ticker.set(Duration.ofMillis(300).minusNanos(1));
		assertThat(limiter.tryAcquire("k", 1).getRetryAfter()).isEqualTo(Duration.ofNanos(1));
		this.ticker.set(Duration.ofMillis(300));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
	}

	@Test
	void limiterBucketNeverAdmitsEarlyWhenRefillIsBeyondLongRange() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofDays(365L * 1000), RefillStrategy.INTERVAL)
			.build());
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isTrue();
		RateLimitDecision again = limiter.tryAcquire("k", 2);
		assertThat(again.isPermitted()).isFalse();
		assertThat(again.getRetryAfter()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
		assertThat(limiter.inspect("k").getRemaining()).isZero();
	}

	private RateLimiter limiter(RateLimiterSettings settings) {
		return TestLimiters.onManualClock(this.ticker, "api", settings);
	}

}
