package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Settings validation and the cost check: bad input fails with a message naming the field or limiter. */
class RateLimiterSettingsTests {

	private static final RateLimiterSettings BUCKET_10_WINDOW_20 = RateLimiterSettings.builder()
		.tokenBucket(10, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
		.window(20, Duration.ofSeconds(1))
		.build();

	@Test
	void maxCostIsTheSmallestConstraint() {
		assertThat(BUCKET_10_WINDOW_20.maxCost()).isEqualTo(10);
		assertThat(RateLimiterSettings.builder().window(3, Duration.ofSeconds(1)).window(5, Duration.ofSeconds(9))
			.build()
			.maxCost()).isEqualTo(3);
		assertThat(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofSeconds(1)).build().maxCost())
			.isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void checkCostRejectsNonPositiveCostAndCostNoConstraintCouldAdmit() {
		BUCKET_10_WINDOW_20.checkCost(10);
		assertThatIllegalArgumentException().isThrownBy(() -> BUCKET_10_WINDOW_20.checkCost(0))
			.withMessage("cost must be positive but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> BUCKET_10_WINDOW_20.checkCost(-1))
			.withMessage("cost must be positive but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> BUCKET_10_WINDOW_20.checkCost(11))
			.withMessage("cost 11 exceeds 10, the most any constraint of this limiter admits, "
					+ "so the call could never be admitted");
	}

	@Test
	void limiterCallsWithImpossibleCostNameTheLimiter() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(new ManualTicker())
			.limiter("partner-api", BUCKET_10_WINDOW_20)
			.build();
		RateLimiter limiter = registry.get("partner-api");
		String expected = "Rate limiter 'partner-api': cost 11 exceeds 10";
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", 11))
			.withMessageStartingWith(expected);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.acquire("k", 11, Duration.ofSeconds(1)))
			.withMessageStartingWith(expected);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.reserve("k", 11, Duration.ZERO))
			.withMessageStartingWith(expected);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.acquireAll(List.of(new RateLimitRequest(limiter, "k", 11, Duration.ZERO))))
			.withMessageStartingWith(expected);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", 0))
			.withMessage("Rate limiter 'partner-api': cost must be positive but was 0");
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(10);
		assertThat(limiter.tryAcquire("k", 10).isPermitted()).isTrue();
	}

	@Test
	void builderRejectsNonPositiveWindowLimitAndPeriod() {
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimiterSettings.builder().window(0, Duration.ofSeconds(1)))
			.withMessage("limit must be positive but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimiterSettings.builder().window(-5, Duration.ofSeconds(1)))
			.withMessage("limit must be positive but was -5");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimiterSettings.builder().window(1, Duration.ZERO))
			.withMessage("period must be positive but was 0ms");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimiterSettings.builder().window(1, Duration.ofMillis(-1)))
			.withMessage("period must be positive but was -1ms");
	}

	@Test
	void builderRejectsATokenBucketThatNeverRefills() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiterSettings.builder().tokenBucket(1, 0, Duration.ofSeconds(1), RefillStrategy.GREEDY))
			.withMessage("token-bucket.refill-tokens must be positive but was 0");
	}

	@Test
	void builderRejectsNonPositiveTokenBucketValues() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiterSettings.builder().tokenBucket(0, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY))
			.withMessage("token-bucket.capacity must be positive but was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiterSettings.builder().tokenBucket(1, -1, Duration.ofSeconds(1), RefillStrategy.GREEDY))
			.withMessage("token-bucket.refill-tokens must be positive but was -1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiterSettings.builder().tokenBucket(1, 1, Duration.ZERO, RefillStrategy.INTERVAL))
			.withMessage("token-bucket.refill-period must be positive but was 0ms");
	}

	@Test
	void buildRejectsTwoWindowsWithTheSamePeriodAndNonPositiveMaxKeys() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiterSettings.builder()
				.window(5, Duration.ofSeconds(1))
				.window(8, Duration.ofSeconds(2))
				.window(3, Duration.ofMillis(1000))
				.build())
			.withMessage("windows[0] and windows[2] both have the period 1s; a limiter's windows need distinct "
					+ "periods (the tighter limit alone has the same effect)");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiterSettings.builder().window(5, Duration.ofSeconds(1)).maxKeys(0).build())
			.withMessage("max-keys must be positive but was 0");
		assertThat(RateLimiterSettings.builder().window(5, Duration.ofSeconds(1)).maxKeys(1).build().maxKeys()).isOne();
		assertThat(RateLimiterSettings.builder().window(5, Duration.ofSeconds(1)).build().maxKeys()).isEqualTo(1_000_000);
	}

	@Test
	void buildRejectsLimiterWithoutConstraint() {
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimiterSettings.builder().build())
			.withMessage("a rate limiter needs at least one of token-bucket, windows or max-concurrent");
	}

	@Test
	void buildRejectsNegativeMaxWaitMaxConcurrentAndNonPositiveLeaseTimeout() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiterSettings.builder()
				.window(1, Duration.ofSeconds(1))
				.maxWait(Duration.ofMillis(-1))
				.build())
			.withMessage("max-wait must not be negative but was -1ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiterSettings.builder().maxConcurrent(-1, Duration.ofSeconds(1)).build())
			.withMessage("max-concurrent must be 0 (unlimited) or positive but was -1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimiterSettings.builder().maxConcurrent(1, Duration.ZERO).build())
			.withMessage("lease-timeout must be positive but was 0ms");
	}

	@Test
	void requestRejectsACostTheLimiterCouldNeverAdmit() {
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(new ManualTicker())
			.limiter("partner-api", BUCKET_10_WINDOW_20)
			.build()
			.get("partner-api");
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimitRequest(limiter, "k", 11, Duration.ZERO))
			.withMessageStartingWith("Rate limiter 'partner-api': cost 11 exceeds 10");
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimitRequest(limiter, "k", 0, Duration.ZERO))
			.withMessage("Rate limiter 'partner-api': cost must be positive but was 0");
	}

	@Test
	void requestRejectsNegativeMaxWait() {
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(new ManualTicker())
			.limiter("partner-api", BUCKET_10_WINDOW_20)
			.build()
			.get("partner-api");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RateLimitRequest(limiter, "k", 1, Duration.ofMillis(-1)))
			.withMessage("maxWait must not be negative but was -1ms");
	}

}
