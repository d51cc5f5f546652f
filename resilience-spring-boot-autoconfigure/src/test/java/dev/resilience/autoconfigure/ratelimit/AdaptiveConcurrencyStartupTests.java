package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings.Algorithm;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Tests that {@code max-concurrent: adaptive} and {@code adaptive-concurrency} (SPEC §11) start
 * when right, and stop startup with a message naming the property when wrong: a value that is
 * neither a number nor {@code adaptive}, adaptive bounds out of order, adaptive settings beside a
 * number, a store that cannot keep an adaptive limit, or Netflix's concurrency-limits missing.
 */
class AdaptiveConcurrencyStartupTests {

	private static final String X = "resilience.rate-limiters.x.";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class));

	@ParameterizedTest
	@ValueSource(strings = { "adaptive", "ADAPTIVE", "Adaptive", " adaptive " })
	void runWhenMaxConcurrentIsAdaptiveInAnyCaseShouldStartWithTheDefaults(String value) {
		this.contextRunner.withPropertyValues(X + "max-concurrent=" + value).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RateLimiterRegistry.class).get("x").getSettings().adaptiveConcurrency())
				.isEqualTo(AdaptiveConcurrencySettings.DEFAULTS);
		});
	}

	@Test
	void runWhenAdaptiveConcurrencyIsSetShouldApplyIt() {
		this.contextRunner.withUserConfiguration(TestTimeConfiguration.class)
			.withPropertyValues(X + "max-concurrent=adaptive", X + "adaptive-concurrency.algorithm=aimd",
					X + "adaptive-concurrency.initial-limit=4", X + "adaptive-concurrency.min-limit=2",
					X + "adaptive-concurrency.max-limit=8")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				assertThat(registry.get("x").getSettings().adaptiveConcurrency())
					.isEqualTo(new AdaptiveConcurrencySettings(Algorithm.AIMD, 4, 2, 8));
				assertThat(registry.get("x").getSettings().maxConcurrent()).isEqualTo(8);
				RateLimiter limiter = registry.get("x");
				assertThat(limiter.inspect("k").getMaxConcurrent()).as("the key's first probe").isEqualTo(2);
				AdaptiveProbe.run(limiter, "k", context.getBean(TestTicker.class)::advance, Duration.ofMillis(10));
				assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(4);
			});
	}

	/**
	 * The properties of each case, and how one message of its startup failure must begin.
	 * @return the cases
	 */
	static Stream<Arguments> misconfigurations() {
		return Stream.of(
				arguments("neither a number nor adaptive", List.of(X + "max-concurrent=lots"),
						X + "max-concurrent must be a number of calls in flight (0 for unlimited) or 'adaptive' but was 'lots'"),
				arguments("min-limit zero", List.of(X + "max-concurrent=adaptive", X + "adaptive-concurrency.min-limit=0"),
						X + "adaptive-concurrency.min-limit must be at least 1 but was 0"),
				arguments("initial-limit below min-limit",
						List.of(X + "max-concurrent=adaptive", X + "adaptive-concurrency.min-limit=5",
								X + "adaptive-concurrency.initial-limit=2"),
						X + "adaptive-concurrency.initial-limit (2) must lie between adaptive-concurrency.min-limit (5) "
								+ "and adaptive-concurrency.max-limit (200)"),
				arguments("initial-limit above max-limit",
						List.of(X + "max-concurrent=adaptive", X + "adaptive-concurrency.max-limit=8"),
						X + "adaptive-concurrency.initial-limit (10) must lie between adaptive-concurrency.min-limit (1) "
								+ "and adaptive-concurrency.max-limit (8)"),
				arguments("max-limit below min-limit",
						List.of(X + "max-concurrent=adaptive", X + "adaptive-concurrency.min-limit=20",
								X + "adaptive-concurrency.max-limit=10", X + "adaptive-concurrency.initial-limit=10"),
						X + "adaptive-concurrency.max-limit (10) must not be below adaptive-concurrency.min-limit (20)"),
				arguments("adaptive-concurrency with a number",
						List.of(X + "max-concurrent=5", X + "adaptive-concurrency.max-limit=50"),
						X + "adaptive-concurrency is set, but max-concurrent is 5, not 'adaptive'"),
				arguments("adaptive-concurrency without max-concurrent",
						List.of(X + "windows[0].limit=5", X + "windows[0].period=1s", X + "adaptive-concurrency.algorithm=vegas"),
						X + "adaptive-concurrency is set, but max-concurrent is 0, not 'adaptive'"),
				arguments("unknown algorithm",
						List.of(X + "max-concurrent=adaptive", X + "adaptive-concurrency.algorithm=bbr"),
						"Failed to bind properties under '" + X + "adaptive-concurrency.algorithm'"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("misconfigurations")
	void runWhenMisconfiguredShouldFailNamingTheProperty(String mistake, List<String> properties, String start) {
		this.contextRunner.withPropertyValues(properties.toArray(String[]::new)).run(Failures.startupFailedWith(start));
	}

	@Test
	void runWhenConcurrencyLimitsIsMissingShouldFailNamingTheArtifact() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("com.netflix.concurrency.limits"))
			.withPropertyValues(X + "max-concurrent=adaptive")
			.run(Failures.startupFailedWith(X + "max-concurrent is adaptive, which needs "
					+ "com.netflix.concurrency-limits:concurrency-limits-core on the class path"));
	}

	@Test
	void runWhenConcurrencyLimitsIsMissingShouldStartLimitersWithAFixedMaxConcurrent() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("com.netflix.concurrency.limits"))
			.withPropertyValues(X + "max-concurrent=5")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void runWhenAnAdaptiveLimiterUsesRedisShouldFailNamingMaxConcurrentAndTheStore() {
		RedisServer server = RedisServer.shared();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, ResilienceAutoConfiguration.class,
					RateLimiterRedisAutoConfiguration.class, RateLimiterAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port(),
					"resilience.redis.connect-timeout=30s", X + "store=redis", X + "max-concurrent=adaptive")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.anySatisfy((message) -> assertThat(message).contains("max-concurrent is adaptive")
						.contains("'x'")
						.contains("redis store cannot keep an adaptive limit"));
			});
	}

}
