package dev.resilience.autoconfigure;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.pool.ConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Tests that a property set where it cannot take effect, for its limiter, store, policy, poll or
 * pool, stops startup naming it (SPEC §8, nothing is silently ignored), while the same property
 * where it takes effect, and every property left unset, start.
 */
class InapplicablePropertiesStartupTests {

	private static final String X = "resilience.rate-limiters.x.";

	private static final String WINDOW = X + "windows[0].limit=5," + X + "windows[0].period=1s";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RetryAutoConfiguration.class, PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class))
		.withBean("sessions", ConnectionFactory.class, () -> (ConnectionFactory<StringBuilder>) StringBuilder::new);

	/**
	 * The properties of each case, comma-separated, and how the startup failure's message begins.
	 * @return the cases
	 */
	static Stream<Arguments> inapplicable() {
		return Stream.of(
				arguments(X + "store=redis," + X + "max-keys=10," + X + "max-concurrent=1",
						X + "max-keys cannot take effect: only bounds the keys of the memory store, and store is redis"),
				arguments(X + "token-bucket.refill-tokens=5," + X + "window-algorithm=counter",
						X + "window-algorithm cannot take effect: is how windows count, and the limiter has no windows"),
				arguments(WINDOW + "," + X + "on-store-failure=fail-closed",
						X + "on-store-failure cannot take effect: is what a remote store decides"),
				arguments(WINDOW + "," + X + "lease-timeout=30s",
						X + "lease-timeout cannot take effect: is how long a permit of max-concurrent lives, and "
								+ "max-concurrent is 0"),
				arguments(WINDOW + "," + X + "pause-on-throttle.max-pause=1m",
						X + "pause-on-throttle.max-pause cannot take effect: only applies when " + X
								+ "pause-on-throttle.enabled is true, and it is false"),
				arguments(WINDOW + "," + X + "pause-on-throttle.default-pause=2s",
						X + "pause-on-throttle.default-pause cannot take effect"),
				arguments(WINDOW + "," + X + "pause-on-throttle.resume-jitter=0.5",
						X + "pause-on-throttle.resume-jitter cannot take effect"),
				arguments(WINDOW + "," + X + "pause-on-throttle.statuses=429",
						X + "pause-on-throttle.statuses cannot take effect: only applies when " + X
								+ "pause-on-throttle.enabled is true or max-concurrent is adaptive"),
				arguments(WINDOW + ",resilience.redis.decision-timeout=1s",
						"resilience.redis.decision-timeout cannot take effect: only rate limiters with store: redis "
								+ "use Redis, and none has it"),
				arguments("resilience.redis.key-prefix=app:", "resilience.redis.key-prefix cannot take effect"),
				arguments("resilience.retries.r.backoff=fixed,resilience.retries.r.multiplier=3",
						"resilience.retries.r.multiplier cannot take effect: only exponential backoff grows by it, "
								+ "and backoff is fixed"),
				arguments("resilience.retries.r.backoff=linear,resilience.retries.r.multiplier=3",
						"resilience.retries.r.multiplier cannot take effect"),
				arguments("resilience.retries.r.backoff=fixed,resilience.retries.r.max-delay=1m",
						"resilience.retries.r.max-delay cannot take effect: backoff is fixed"),
				arguments("resilience.polls.p.backoff=fixed,resilience.polls.p.multiplier=2",
						"resilience.polls.p.multiplier cannot take effect"),
				arguments("resilience.polls.p.backoff=fixed,resilience.polls.p.max-delay=1m",
						"resilience.polls.p.max-delay cannot take effect"),
				arguments("resilience.pools.q.validate-on-checkout=true",
						"resilience.pools.q.validate-on-checkout cannot take effect: the pool has no factory"),
				arguments("resilience.pools.q.max-idle-time=1m",
						"resilience.pools.q.max-idle-time cannot take effect: the pool has no factory"),
				arguments("resilience.pools.q.min-idle=1",
						"resilience.pools.q.min-idle cannot take effect: the pool has no factory"));
	}

	@ParameterizedTest
	@MethodSource("inapplicable")
	void runWhenAPropertyCannotTakeEffectShouldFailNamingIt(String properties, String message) {
		this.contextRunner.withPropertyValues(properties.split(",")).run(Failures.startupFailedWith(message));
	}

	/**
	 * The same properties where they take effect, and their defaults written out where they do not.
	 * @return the cases
	 */
	static Stream<Arguments> applicable() {
		return Stream.of(arguments(List.of(WINDOW, X + "max-keys=10", X + "window-algorithm=counter")),
				arguments(List.of(X + "max-concurrent=2", X + "lease-timeout=30s")),
				arguments(List.of(X + "max-concurrent=adaptive", X + "lease-timeout=30s", X + "pause-on-throttle.statuses=503")),
				arguments(List.of(WINDOW, X + "pause-on-throttle.enabled=true", X + "pause-on-throttle.max-pause=1m",
						X + "pause-on-throttle.statuses=429", X + "pause-on-throttle.default-pause=2s",
						X + "pause-on-throttle.resume-jitter=0.5")),
				arguments(List.of(WINDOW, X + "pause-on-throttle.enabled=false")),
				arguments(List.of("resilience.retries.r.backoff=exponential", "resilience.retries.r.multiplier=3",
						"resilience.retries.r.max-delay=1m")),
				arguments(List.of("resilience.retries.r.backoff=linear", "resilience.retries.r.max-delay=1m")),
				arguments(List.of("resilience.polls.p.backoff=exponential", "resilience.polls.p.multiplier=3")),
				arguments(List.of("resilience.pools.q.factory=sessions", "resilience.pools.q.min-idle=1",
						"resilience.pools.q.max-idle-time=1m", "resilience.pools.q.validate-on-checkout=true")),
				arguments(List.of("resilience.pools.q.max-size=2")));
	}

	@ParameterizedTest
	@MethodSource("applicable")
	void runWhenEveryPropertySetTakesEffectShouldStart(List<String> properties) {
		this.contextRunner.withPropertyValues(String.join(",", properties).split(","))
			.run((context) -> assertThat(context).hasNotFailed());
	}

}
