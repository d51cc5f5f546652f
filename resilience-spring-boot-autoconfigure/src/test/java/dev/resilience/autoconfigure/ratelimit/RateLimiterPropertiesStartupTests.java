package dev.resilience.autoconfigure.ratelimit;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that a misconfigured {@code resilience.rate-limiters.<name>} stops startup with a message
 * naming the property (SPEC section 8).
 */
class RateLimiterPropertiesStartupTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class));

	@Test
	void runWhenLimiterIsValidShouldStart() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.windows[0].limit=1",
					"resilience.rate-limiters.x.windows[0].period=5s")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RateLimiterRegistry.class));
	}

	@Test
	void runWhenWindowLimitIsZeroShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.windows[0].limit=0",
					"resilience.rate-limiters.x.windows[0].period=5s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("resilience.rate-limiters.x.windows[0].limit must be positive but was 0");
			});
	}

	@Test
	void runWhenSecondWindowPeriodIsZeroShouldFailNamingThatWindow() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.windows[0].limit=5",
					"resilience.rate-limiters.x.windows[0].period=5s", "resilience.rate-limiters.x.windows[1].limit=10",
					"resilience.rate-limiters.x.windows[1].period=0s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("resilience.rate-limiters.x.windows[1].period must be positive but was PT0S");
			});
	}

	@Test
	void runWhenWindowHasNoPeriodShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.x.windows[0].limit=5").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("resilience.rate-limiters.x.windows[0].period is required");
		});
	}

	@Test
	void runWhenTokenBucketCapacityIsZeroShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.token-bucket.capacity=0",
					"resilience.rate-limiters.x.token-bucket.refill-tokens=5")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("resilience.rate-limiters.x.token-bucket.capacity must be positive but was 0");
			});
	}

	@Test
	void runWhenTokenBucketHasNoRefillTokensShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.x.token-bucket.capacity=10").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("resilience.rate-limiters.x.token-bucket.refill-tokens is required");
		});
	}

	@Test
	void runWhenTokenBucketRefillPeriodIsNegativeShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.token-bucket.refill-tokens=5",
					"resilience.rate-limiters.x.token-bucket.refill-period=-1s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("resilience.rate-limiters.x.token-bucket.refill-period must be positive but was PT-1S");
			});
	}

	@Test
	void runWhenLimiterHasNoConstraintShouldFailNamingTheLimiter() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.x.max-wait=1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure())).contains(
					"resilience.rate-limiters.x: a rate limiter needs at least one of token-bucket, windows or max-concurrent");
		});
	}

	@Test
	void runWhenMaxWaitIsNegativeShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.max-concurrent=1", "resilience.rate-limiters.x.max-wait=-1s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("resilience.rate-limiters.x: max-wait must not be negative but was PT-1S");
			});
	}

	@Test
	void runWhenMaxConcurrentIsNegativeShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.x.max-concurrent=-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("resilience.rate-limiters.x: max-concurrent must be 0 (unlimited) or positive but was -1");
		});
	}

	@Test
	void runWhenLeaseTimeoutIsZeroShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.max-concurrent=1", "resilience.rate-limiters.x.lease-timeout=0s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("resilience.rate-limiters.x: lease-timeout must be positive but was PT0S");
			});
	}

	@Test
	void runWhenMaxKeysIsZeroShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.max-concurrent=1", "resilience.rate-limiters.x.max-keys=0")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("resilience.rate-limiters.x.max-keys must be positive but was 0");
			});
	}

	@Test
	void runWhenTwoWindowsHaveTheSamePeriodShouldFailNamingTheLimiterAndWindows() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.windows[0].limit=5",
					"resilience.rate-limiters.x.windows[0].period=5s", "resilience.rate-limiters.x.windows[1].limit=10",
					"resilience.rate-limiters.x.windows[1].period=5000ms")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure())).anySatisfy((message) -> assertThat(message)
					.startsWith("resilience.rate-limiters.x: windows[0] and windows[1] both have the period PT5S"));
			});
	}

	@Test
	void runWhenDurationDoesNotParseShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.windows[0].limit=5",
					"resilience.rate-limiters.x.windows[0].period=5 lightyears")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("Failed to bind properties under 'resilience.rate-limiters.x.windows[0].period' to java.time.Duration",
							"'5 lightyears' is not a valid duration");
			});
	}

	@Test
	void runWhenKeyIsUnknownShouldFailNamingIt() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.windows[0].limit=5",
					"resilience.rate-limiters.x.windows[0].period=5s", "resilience.rate-limiters.x.bogus=1")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("The elements [resilience.rate-limiters.x.bogus] were left unbound.");
			});
	}

	@Test
	void runWhenTopLevelKeyIsUnknownShouldFailNamingIt() {
		this.contextRunner.withPropertyValues("resilience.rate-limiter.x.max-concurrent=1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("The elements [resilience.rate-limiter.x.max-concurrent] were left unbound.");
		});
	}

	@Test
	void runWhenStoreIsRedisWithoutARedisConnectionShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.max-concurrent=1", "resilience.rate-limiters.x.store=redis")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.anySatisfy((message) -> assertThat(message)
						.startsWith("resilience.rate-limiters.x.store is redis, which needs Spring Data Redis"));
			});
	}

	@Test
	void runWhenStoreIsUnknownShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.max-concurrent=1", "resilience.rate-limiters.x.store=disk")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.contains("Failed to bind properties under 'resilience.rate-limiters.x.store' to "
							+ RateLimiterProperties.Store.class.getName());
			});
	}

}
