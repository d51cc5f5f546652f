package dev.resilience.autoconfigure.refresh;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterRedisAutoConfiguration;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests settings changed at run time on the Redis store, with a real {@code redis-server}: each
 * decision sends the instance's own settings to the script, so the new ones decide from the next
 * call over the state Redis holds, and two instances sharing a key each decide by their own
 * settings until both have changed.
 */
class ResilienceSettingsRedisTests {

	private static final RedisServer server = RedisServer.shared();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterRedisAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				ResilienceSettingsAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port(),
				"resilience.redis.connect-timeout=30s", "resilience.redis.decision-timeout=5s",
				"resilience.rate-limiters.shared.store=redis", "resilience.rate-limiters.shared.windows[0].limit=3",
				"resilience.rate-limiters.shared.windows[0].period=1h", "resilience.rate-limiters.bucket.store=redis",
				"resilience.rate-limiters.bucket.token-bucket.capacity=10",
				"resilience.rate-limiters.bucket.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.bucket.token-bucket.refill-period=1h");

	@Test
	void runWhenAWindowLimitIsRaisedShouldReachTheScriptAndInstancesConvergeAsTheyChange() {
		String prefix = "resilience.redis.key-prefix=refresh-" + System.nanoTime() + ":";
		ApplicationContextRunner runner = this.contextRunner.withPropertyValues(prefix);
		runner.run((first) -> runner.run((second) -> {
			RateLimiter one = first.getBean(RateLimiterRegistry.class).get("shared");
			RateLimiter two = second.getBean(RateLimiterRegistry.class).get("shared");
			assertThat(permitted(one, 2) + permitted(two, 2)).isEqualTo(3);
			first.getBean(ResilienceSettingsUpdater.class).update("shared", Map.of("windows[0].limit", "5"));
			// the first instance sends limit 5 with its calls, the second still 3: the same entries count
			assertThat(permitted(two, 1)).isZero();
			assertThat(permitted(one, 3)).isEqualTo(2);
			second.getBean(ResilienceSettingsUpdater.class).update("shared", Map.of("windows[0].limit", "6"));
			assertThat(permitted(one, 1)).isZero();
			assertThat(permitted(two, 2)).isEqualTo(1);
		}));
	}

	@Test
	void runWhenABucketsCapacityIsLoweredShouldKeepItsTokensCappedInRedis() {
		this.contextRunner.withPropertyValues("resilience.redis.key-prefix=refresh-" + System.nanoTime() + ":")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("bucket");
				assertThat(permitted(limiter, 2)).isEqualTo(2);
				ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
				updater.update("bucket", Map.of("token-bucket.capacity", "20"));
				assertThat(limiter.inspect("k").getRemaining()).isEqualTo(8);
				updater.update("bucket", Map.of("token-bucket.capacity", "5"));
				assertThat(limiter.inspect("k").getRemaining()).isEqualTo(5);
				assertThat(permitted(limiter, 6)).isEqualTo(5);
			});
	}

	private static int permitted(RateLimiter limiter, int calls) {
		int permitted = 0;
		for (int i = 0; i < calls; i++) {
			if (limiter.tryAcquire("k", 1).isPermitted()) {
				permitted++;
			}
		}
		return permitted;
	}

}
