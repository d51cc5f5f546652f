package dev.resilience.ratelimit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.AdaptiveConcurrencySettings.Algorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * The settings of {@code max-concurrent: adaptive}: their checks name the property, and a
 * limiter's {@code max-concurrent} is the adaptive limit's {@code max-limit}.
 */
class AdaptiveConcurrencySettingsTests {

	@Test
	void valuesOutOfRangeNameTheirProperty() {
		assertThatIllegalArgumentException().isThrownBy(() -> new AdaptiveConcurrencySettings(Algorithm.GRADIENT, 1, 0, 5))
			.withMessage("adaptive-concurrency.min-limit must be at least 1 but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> new AdaptiveConcurrencySettings(Algorithm.VEGAS, 3, 3, 2))
			.withMessage("adaptive-concurrency.max-limit (2) must not be below adaptive-concurrency.min-limit (3)");
		assertThatIllegalArgumentException().isThrownBy(() -> new AdaptiveConcurrencySettings(Algorithm.AIMD, 11, 1, 10))
			.withMessage("adaptive-concurrency.initial-limit (11) must lie between adaptive-concurrency.min-limit (1) "
					+ "and adaptive-concurrency.max-limit (10)");
		assertThatIllegalArgumentException().isThrownBy(() -> new AdaptiveConcurrencySettings(Algorithm.AIMD, 1, 2, 10))
			.withMessage("adaptive-concurrency.initial-limit (1) must lie between adaptive-concurrency.min-limit (2) "
					+ "and adaptive-concurrency.max-limit (10)");
		assertThatNullPointerException().isThrownBy(() -> new AdaptiveConcurrencySettings(null, 1, 1, 1))
			.withMessage("algorithm");
	}

	@Test
	void theBoundsThemselvesAreAccepted() {
		AdaptiveConcurrencySettings one = new AdaptiveConcurrencySettings(Algorithm.AIMD, 1, 1, 1);
		assertThat(one.initialLimit()).isEqualTo(1);
		assertThat(new AdaptiveConcurrencySettings(Algorithm.AIMD, 2, 2, 9).initialLimit()).isEqualTo(2);
		assertThat(new AdaptiveConcurrencySettings(Algorithm.AIMD, 9, 2, 9).initialLimit()).isEqualTo(9);
	}

	@Test
	void theDefaultsAreGradientFromTenBetweenOneAndTwoHundred() {
		assertThat(AdaptiveConcurrencySettings.DEFAULTS)
			.isEqualTo(new AdaptiveConcurrencySettings(Algorithm.GRADIENT, 10, 1, 200));
	}

	@Test
	void anAdaptiveLimiterHasItsMaxLimitAsMaxConcurrent() {
		AdaptiveConcurrencySettings adaptive = new AdaptiveConcurrencySettings(Algorithm.VEGAS, 4, 2, 30);

		RateLimiterSettings settings = RateLimiterSettings.builder()
			.adaptiveConcurrency(adaptive, Duration.ofSeconds(20))
			.build();

		assertThat(settings.adaptiveConcurrency()).isSameAs(adaptive);
		assertThat(settings.maxConcurrent()).isEqualTo(30);
		assertThat(settings.leaseTimeout()).isEqualTo(Duration.ofSeconds(20));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RateLimiterSettings(settings.store(), null, settings.windows(), settings.windowAlgorithm(),
					29, adaptive, settings.leaseTimeout(), settings.maxWait(), settings.maxKeys(),
					settings.onStoreFailure(), settings.pauseOnThrottle()))
			.withMessage("with adaptive concurrency, max-concurrent must be its max-limit (30) but was 29");
	}

	@Test
	void theLastOfAFixedAndAnAdaptiveLimitOnTheBuilderWins() {
		AdaptiveConcurrencySettings adaptive = new AdaptiveConcurrencySettings(Algorithm.AIMD, 4, 2, 30);

		RateLimiterSettings fixed = RateLimiterSettings.builder()
			.adaptiveConcurrency(adaptive, Duration.ofSeconds(20))
			.maxConcurrent(5, Duration.ofSeconds(10))
			.build();
		RateLimiterSettings adaptiveAfterFixed = RateLimiterSettings.builder()
			.maxConcurrent(5, Duration.ofSeconds(10))
			.adaptiveConcurrency(adaptive, Duration.ofSeconds(20))
			.build();

		assertThat(fixed.adaptiveConcurrency()).isNull();
		assertThat(fixed.maxConcurrent()).isEqualTo(5);
		assertThat(adaptiveAfterFixed.adaptiveConcurrency()).isSameAs(adaptive);
		assertThat(adaptiveAfterFixed.maxConcurrent()).isEqualTo(30);
	}

}
