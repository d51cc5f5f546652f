package dev.resilience.autoconfigure.ratelimit;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Tests that a misconfigured {@code resilience.rate-limiters.<name>} stops startup with a message
 * naming the property.
 */
class RateLimiterPropertiesStartupTests {

	private static final String X = "resilience.rate-limiters.x.";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class));

	/**
	 * The Redis settings are checked even when no limiter uses Redis (or Spring Data Redis is
	 * absent): a wrong value must not wait for the day a limiter moves to Redis.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "resilience.redis.decision-timeout=0s|resilience.redis.decision-timeout must be positive but was 0ms",
			"resilience.redis.connect-timeout=-1s|resilience.redis.connect-timeout must not be negative but was -1s",
			"resilience.redis.key-prefix=app{1}:|resilience.redis.key-prefix must not contain '{' or '}'" })
	void runWhenARedisSettingIsWrongWithoutRedisLimitersShouldFailNamingIt(String line) {
		String[] parts = line.split("\\|");
		this.contextRunner.withPropertyValues(X + "windows[0].limit=1", X + "windows[0].period=5s", parts[0])
			.run(Failures.startupFailedWith(parts[1]));
	}

	@Test
	void runWhenLimiterIsValidShouldStart() {
		this.contextRunner.withPropertyValues(X + "windows[0].limit=1", X + "windows[0].period=5s")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RateLimiterRegistry.class));
	}

	/**
	 * The properties of each case, and the messages its startup failure must carry, each the whole
	 * message of one exception in the cause chain.
	 * @return the cases
	 */
	static Stream<Arguments> misconfigurations() {
		return Stream.of(
				arguments("window limit zero", List.of(X + "windows[0].limit=0", X + "windows[0].period=5s"),
						List.of(X + "windows[0].limit must be positive but was 0")),
				arguments("second window period zero",
						List.of(X + "windows[0].limit=5", X + "windows[0].period=5s", X + "windows[1].limit=10",
								X + "windows[1].period=0s"),
						List.of(X + "windows[1].period must be positive but was 0ms")),
				arguments("window without period", List.of(X + "windows[0].limit=5"),
						List.of(X + "windows[0].period is required")),
				arguments("token-bucket capacity zero",
						List.of(X + "token-bucket.capacity=0", X + "token-bucket.refill-tokens=5"),
						List.of(X + "token-bucket.capacity must be positive but was 0")),
				arguments("token bucket without refill-tokens", List.of(X + "token-bucket.capacity=10"),
						List.of(X + "token-bucket.refill-tokens is required")),
				arguments("token-bucket refill-period negative",
						List.of(X + "token-bucket.refill-tokens=5", X + "token-bucket.refill-period=-1s"),
						List.of(X + "token-bucket.refill-period must be positive but was -1s")),
				arguments("no constraint", List.of(X + "max-wait=1s"),
						List.of("resilience.rate-limiters.x: a rate limiter needs at least one of token-bucket, windows or max-concurrent")),
				arguments("max-wait negative", List.of(X + "max-concurrent=1", X + "max-wait=-1s"),
						List.of(X + "max-wait must not be negative but was -1s")),
				arguments("max-concurrent negative", List.of(X + "max-concurrent=-1"),
						List.of(X + "max-concurrent must be 0 (unlimited) or positive but was -1")),
				arguments("lease-timeout zero", List.of(X + "max-concurrent=1", X + "lease-timeout=0s"),
						List.of(X + "lease-timeout must be positive but was 0ms")),
				arguments("max-keys zero", List.of(X + "max-concurrent=1", X + "max-keys=0"),
						List.of(X + "max-keys must be positive but was 0")),
				arguments("duration that does not parse",
						List.of(X + "windows[0].limit=5", X + "windows[0].period=5 lightyears"),
						List.of("Failed to bind properties under 'resilience.rate-limiters.x.windows[0].period' to java.time.Duration",
								"'5 lightyears' is not a valid duration")),
				arguments("unknown key",
						List.of(X + "windows[0].limit=5", X + "windows[0].period=5s", X + "bogus=1"),
						List.of("The elements [resilience.rate-limiters.x.bogus] were left unbound.")),
				arguments("unknown top-level key", List.of("resilience.rate-limiter.x.max-concurrent=1"),
						List.of("The elements [resilience.rate-limiter.x.max-concurrent] were left unbound.")),
				arguments("pause-on-throttle resume-jitter above 1",
						List.of(X + "max-concurrent=1", X + "pause-on-throttle.enabled=true",
								X + "pause-on-throttle.resume-jitter=1.5"),
						List.of(X + "pause-on-throttle.resume-jitter must be between 0 and 1 but was 1.5")),
				arguments("pause-on-throttle status out of range",
						List.of(X + "max-concurrent=1", X + "pause-on-throttle.statuses=429,42"),
						List.of(X + "pause-on-throttle.statuses must hold HTTP statuses (100 to 599) but held 42")),
				arguments("pause-on-throttle default-pause zero",
						List.of(X + "max-concurrent=1", X + "pause-on-throttle.default-pause=0s"),
						List.of(X + "pause-on-throttle.default-pause must be positive but was 0ms")),
				arguments("pause-on-throttle max-pause below default-pause",
						List.of(X + "max-concurrent=1", X + "pause-on-throttle.default-pause=5s",
								X + "pause-on-throttle.max-pause=2s"),
						List.of(X + "pause-on-throttle.max-pause (2s) must not be shorter than "
								+ "pause-on-throttle.default-pause (5s)")),
				arguments("unknown store", List.of(X + "max-concurrent=1", X + "store=disk"),
						List.of("Failed to bind properties under 'resilience.rate-limiters.x.store' to "
								+ RateLimiterProperties.Store.class.getName())));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("misconfigurations")
	void runWhenMisconfiguredShouldFailNamingTheProperty(String mistake, List<String> properties,
			List<String> messages) {
		this.contextRunner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure())).containsAll(messages);
		});
	}

	/**
	 * The properties of each case, and how one message of its startup failure must begin.
	 * @return the cases
	 */
	static Stream<Arguments> misconfigurationsWithLongerMessages() {
		return Stream.of(
				arguments("two windows with the same period",
						List.of(X + "windows[0].limit=5", X + "windows[0].period=5s", X + "windows[1].limit=10",
								X + "windows[1].period=5000ms"),
						"resilience.rate-limiters.x: windows[0] and windows[1] both have the period 5s"),
				arguments("redis store without a Redis connection", List.of(X + "max-concurrent=1", X + "store=redis"),
						X + "store is redis, which needs Spring Data Redis"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("misconfigurationsWithLongerMessages")
	void runWhenMisconfiguredShouldFailWithAMessageStartingWith(String mistake, List<String> properties,
			String start) {
		this.contextRunner.withPropertyValues(properties.toArray(String[]::new)).run(Failures.startupFailedWith(start));
	}

}
