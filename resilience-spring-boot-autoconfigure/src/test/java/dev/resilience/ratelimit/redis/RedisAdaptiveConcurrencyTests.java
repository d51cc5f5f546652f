package dev.resilience.ratelimit.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code max-concurrent: adaptive} is kept per instance (SPEC §11), so the Redis store, shared by
 * the instances, refuses it at creation and at a change of settings, against a real
 * {@code redis-server}.
 */
class RedisAdaptiveConcurrencyTests {

	private static final RedisServer server = RedisServer.shared();

	private static final AdaptiveConcurrencySettings ADAPTIVE = AdaptiveConcurrencySettings.DEFAULTS;

	private final String prefix = "adaptive-test-" + System.nanoTime() + ":";

	private StoreRateLimiterRegistry.Builder registry() {
		return StoreRateLimiterRegistry.builder()
			.store(RedisRateLimitStore.TYPE, RedisServer.stores(server.runner(), this.prefix, Duration.ofSeconds(2)));
	}

	@Test
	void anAdaptiveLimiterOnRedisIsRefusedAtCreation() {
		RateLimiterSettings settings = RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.adaptiveConcurrency(ADAPTIVE, Duration.ofMinutes(1))
			.build();

		assertThatIllegalArgumentException().isThrownBy(() -> registry().limiter("partner", settings).build())
			.withMessageContaining("max-concurrent is adaptive for rate limiter 'partner'")
			.withMessageContaining("redis store cannot keep an adaptive limit")
			.withMessageContaining("use the memory store for this limiter, or a fixed max-concurrent");
	}

	@Test
	void aChangeToAdaptiveOnRedisIsRefusedAndTheFixedLimitStays() {
		RateLimiterRegistry registry = registry().limiter("partner",
				RateLimiterSettings.builder().store(RedisRateLimitStore.TYPE).maxConcurrent(2, Duration.ofMinutes(1)).build())
			.build();
		RateLimiterSettings before = registry.get("partner").getSettings();

		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.updateSettings("partner", RateLimiterSettings.builder()
				.store(RedisRateLimitStore.TYPE)
				.adaptiveConcurrency(ADAPTIVE, Duration.ofMinutes(1))
				.build()))
			.withMessageContaining("redis store cannot keep an adaptive limit");
		assertThat(registry.get("partner").getSettings()).isSameAs(before);
		assertThat(registry.get("partner").inspect("k").getMaxConcurrent()).isEqualTo(2);
	}

}
