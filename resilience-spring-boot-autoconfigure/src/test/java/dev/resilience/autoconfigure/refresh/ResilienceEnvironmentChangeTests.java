package dev.resilience.autoconfigure.refresh;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.retry.RetryRegistry;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Tests settings changed by Spring Cloud's refresh (docs/runtime-changes.md): when {@code resilience.*}
 * properties change and an {@link EnvironmentChangeEvent} is published, the limiters, policies,
 * polls and pools they belong to take them from the next decision; a wrong change is logged and
 * the old settings stay.
 */
class ResilienceEnvironmentChangeTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RetryAutoConfiguration.class, PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class,
				ResilienceSettingsAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class)
		.withPropertyValues("resilience.rate-limiters.partner.windows[0].limit=3",
				"resilience.rate-limiters.partner.windows[0].period=1m",
				"resilience.retries.flaky.max-retries=1", "resilience.polls.export.max-attempts=2",
				"resilience.pools.workers.max-size=1");

	@Test
	void runWhenALimitChangesAndTheEnvironmentChangeIsPublishedShouldApplyItKeepingTheEntries() {
		this.contextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			assertThat(permitted(limiter, 5)).isEqualTo(3);
			change(context, Map.of("resilience.rate-limiters.partner.windows[0].limit", "5"));
			assertThat(permitted(limiter, 5)).isEqualTo(2);
			context.getBean(TestTicker.class).advance(Duration.ofMinutes(1));
			assertThat(permitted(limiter, 6)).isEqualTo(5);
		});
	}

	@Test
	void runWhenAChangeIsWrongShouldLogItAndKeepTheOldSettings() {
		// The listener's own logger: the console may be bound to a stream taken before this test.
		Logger logger = Logger.getLogger(ResilienceEnvironmentChangeListener.class.getName());
		List<String> logged = new CopyOnWriteArrayList<>();
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord record) {
				logged.add(record.getLevel() + " " + record.getMessage());
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		logger.addHandler(handler);
		try {
			this.contextRunner.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
				change(context, Map.of("resilience.rate-limiters.partner.windows[0].limit", "-1",
						"resilience.retries.flaky.max-retries", "4"));
				assertThat(logged).singleElement(InstanceOfAssertFactories.STRING)
					.startsWith("SEVERE Changed resilience properties refused, the old settings stay: "
							+ "resilience.rate-limiters.partner");
				assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(3);
				assertThat(permitted(limiter, 4)).isEqualTo(3);
				// the other change is made
				assertThat(context.getBean(RetryRegistry.class).getPolicy("flaky").maxRetries()).isEqualTo(4);
			});
		}
		finally {
			logger.removeHandler(handler);
		}
	}

	@Test
	void runWhenPollAndPoolPropertiesChangeShouldApplyThem() {
		this.contextRunner.run((context) -> {
			change(context, Map.of("resilience.polls.export.max-attempts", "7", "resilience.pools.workers.max-size", "3",
					"resilience.pools.workers.timeout", "2s"));
			assertThat(context.getBean(PollSettingsRegistry.class).get("export").maxAttempts()).isEqualTo(7);
			ConnectionPool<?> pool = context.getBean("workers", ConnectionPool.class);
			assertThat(pool.getSettings().maxSize()).isEqualTo(3);
			assertThat(pool.getSettings().timeout()).isEqualTo(Duration.ofSeconds(2));
			assertThat(pool.getStats().maxSize()).isEqualTo(3);
		});
	}

	@Test
	void runWhenOtherPropertiesChangeShouldLeaveTheSettings() {
		this.contextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			var before = limiter.getSettings();
			change(context, Map.of("other.property", "1"));
			assertThat(limiter.getSettings()).isSameAs(before);
		});
	}

	@Test
	void runWhenAChangeDoesNotFitAnAnnotatedMethodShouldRefuseItNamingTheMethod() {
		this.contextRunner.withBean(Costly.class).run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("partner", Map.of("windows[0].limit", "2")))
				.withMessageStartingWith("resilience.rate-limiters.partner.windows[0].limit cannot take this value: "
						+ "@RateLimited on Costly.call(): cost 3 is "
						+ "invalid for rate limiter 'partner'");
			assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(3);
			updater.update("partner", Map.of("windows[0].limit", "4"));
			assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(4);
		});
	}

	@Test
	void runWhenOnePropertyIsUpdatedUnderTwoSpellingsShouldKeepTheLatestValue() {
		this.contextRunner.run((context) -> {
			ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			// Spring reads "windows[0]..limit" as windows[0].limit
			updater.update("partner", Map.of("windows[0]..limit", "5"));
			assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(5);
			updater.update("partner", Map.of("windows[0].limit", "7"));
			assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(7);
			updater.update("partner", Map.of("max-wait", "1s"));
			assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(7);
			updater.update("partner", Map.of("windows[0]..limit", "6"));
			assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(6);
		});
	}

	@Test
	void runWhenPauseOnThrottleIsTurnedOnAtRunTimeShouldPauseFromThenOnAndRefuseAWrongValue() {
		this.contextRunner.run((context) -> {
			ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			assertThat(limiter.getSettings().pauseOnThrottle().enabled()).isFalse();

			updater.update("partner", Map.of("pause-on-throttle.enabled", "true", "pause-on-throttle.max-pause", "5s",
					"pause-on-throttle.statuses", "429,420"));

			assertThat(limiter.getSettings().pauseOnThrottle())
				.satisfies((pausing) -> {
					assertThat(pausing.enabled()).isTrue();
					assertThat(pausing.maxPause()).isEqualTo(Duration.ofSeconds(5));
					assertThat(pausing.statuses()).containsExactlyInAnyOrder(429, 420);
				});
			limiter.pause("k", Duration.ofMinutes(1));
			assertThat(limiter.inspect("k").getPause()).isEqualTo(Duration.ofSeconds(5));
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("partner", Map.of("pause-on-throttle.resume-jitter", "2")))
				.withMessageContaining("resilience.rate-limiters.partner.pause-on-throttle.resume-jitter must be between 0 and 1");
			assertThat(limiter.getSettings().pauseOnThrottle().resumeJitter()).isEqualTo(0.1);
		});
	}

	/** What the endpoint's write operation answers 400 with: the property named before what is wrong. */
	@Test
	void runWhenAnUpdateIsWrongShouldRefuseItNamingTheProperty() {
		this.contextRunner.run((context) -> {
			ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
			assertThatIllegalArgumentException().isThrownBy(() -> updater.update("partner", Map.of("max-wait", "soon")))
				.withMessageStartingWith("resilience.rate-limiters.partner.max-wait cannot be 'soon': ");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("partner", Map.of("windows[0].limmit", "5")))
				.withMessage("resilience.rate-limiters.partner.windows[0].limmit does not exist");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("partner", Map.of("maxWait", "5")))
				.withMessage("resilience.rate-limiters.partner.maxWait is not a property name; write paths as "
						+ "in application.properties, such as windows[0].limit or max-wait");
			Map<String, String> noValue = new HashMap<>();
			noValue.put("max-wait", null);
			assertThatNullPointerException().isThrownBy(() -> updater.update("partner", noValue))
				.withMessage("resilience.rate-limiters.partner.max-wait has no value");
			assertThatIllegalArgumentException().isThrownBy(() -> updater.update("partner", Map.of("store", "redis")))
				.withMessageStartingWith("resilience.rate-limiters.partner.store cannot change from memory to redis at "
						+ "run time");
			assertThatIllegalArgumentException().isThrownBy(() -> updater.update("workers", Map.of("factory", "other")))
				.withMessage("resilience.pools.workers.factory cannot change from null to other at run time, as the "
						+ "pool holds its connections; restart to change it");
			assertThat(context.getBean(RateLimiterRegistry.class).get("partner").getSettings().store()).isEqualTo("memory");
		});
	}

	/**
	 * A name that is not in the canonical form of property names, such as {@code partnerApi},
	 * binds at startup as that map key, written plainly or in brackets; a change must find its
	 * properties the same way (it bound nothing, and refused every change as a limiter without
	 * constraints, or left a refresh unapplied).
	 */
	@Test
	void runWhenANameIsInCamelCaseShouldChangeItsSettings() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.partnerApi.windows[0].limit=3",
					"resilience.rate-limiters.partnerApi.windows[0].period=1m",
					"resilience.rate-limiters[bracketedApi].windows[0].limit=3",
					"resilience.rate-limiters[bracketedApi].windows[0].period=1m")
			.run((context) -> {
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
				updater.update("partnerApi", Map.of("max-wait", "1s"));
				assertThat(registry.get("partnerApi").getSettings().maxWait()).isEqualTo(Duration.ofSeconds(1));
				assertThat(registry.get("partnerApi").getSettings().windows().get(0).limit()).isEqualTo(3);
				updater.update("bracketedApi", Map.of("windows[0].limit", "4"));
				assertThat(registry.get("bracketedApi").getSettings().windows().get(0).limit()).isEqualTo(4);
				change(context, Map.of("resilience.rate-limiters.partnerApi.windows[0].limit", "5"));
				assertThat(registry.get("partnerApi").getSettings().windows().get(0).limit()).isEqualTo(5);
				assertThat(registry.get("partnerApi").getSettings().maxWait()).isEqualTo(Duration.ofSeconds(1));
				assertThat(registry.get("partner").getSettings().windows().get(0).limit()).isEqualTo(3);
			});
	}

	/** A name's properties from the environment variables count too (the first source wins, as in the environment). */
	@Test
	void runWhenEnvironmentVariablesSetPropertiesOfANameShouldKeepThemOnAnUpdate() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.partner-api.windows[0].limit=3",
					"resilience.rate-limiters.partner-api.windows[0].period=1m")
			.run((context) -> {
				context.getEnvironment()
					.getPropertySources()
					.addFirst(new SystemEnvironmentPropertySource("test-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
							Map.of("RESILIENCE_RATELIMITERS_PARTNERAPI_WINDOWS_0_LIMIT", "7")));
				ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
				updater.update("partner-api", Map.of("max-wait", "1s"));
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner-api");
				assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(7);
				assertThat(limiter.getSettings().maxWait()).isEqualTo(Duration.ofSeconds(1));
			});
	}

	/**
	 * A change of a policy's budget that an annotated method refuses leaves the policy as it was,
	 * and its budget with what it counted: a refused change changes nothing.
	 */
	@Test
	void runWhenABudgetChangeIsRefusedByAMethodShouldKeepWhatTheBudgetCounted() {
		this.contextRunner
			.withPropertyValues("resilience.retries.budgeted.budget.ratio=0.5",
					"resilience.retries.budgeted.budget.min-retries-per-second=1")
			.withBean(SlowRetry.class)
			.run((context) -> {
				RetryRegistry retries = context.getBean(RetryRegistry.class);
				ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
				long full = retries.getBudget("budgeted").available();
				assertThat(retries.getBudget("budgeted").tryRetry()).isTrue();
				assertThat(retries.getBudget("budgeted").available()).isEqualTo(full - 1);
				// the method's delay of 5s does not fit a max-delay of 2s
				assertThatIllegalArgumentException()
					.isThrownBy(() -> updater.update("budgeted", Map.of("budget.ratio", "0.2", "max-delay", "2s")))
					.withMessageContaining("SlowRetry.call()");
				assertThat(retries.getPolicy("budgeted").budget().ratio()).isEqualTo(0.5);
				assertThat(retries.getBudget("budgeted").available()).isEqualTo(full - 1);
			});
	}

	/**
	 * A list element is a property as application.properties writes it ({@code retry-on[0]}), and
	 * replaces the list however it was written before: Spring Boot binds a list from a value of its
	 * own name rather than from its elements, so that value, from the configuration or an earlier
	 * update, left the element unbound and the update refused as a property that does not exist.
	 */
	@Test
	void runWhenAnUpdateSetsAnElementOfAListWrittenAsOneValueShouldApplyIt() {
		this.contextRunner.withPropertyValues("resilience.retries.listed.retry-on=java.io.IOException,java.lang.IllegalStateException")
			.run((context) -> {
				ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
				RetryRegistry retries = context.getBean(RetryRegistry.class);
				updater.update("listed", Map.of("retry-on[0]", "java.io.FileNotFoundException"));
				assertThat(retries.getPolicy("listed").retryOn()).containsExactly(java.io.FileNotFoundException.class);
				updater.update("flaky", Map.of("no-retry-on", "java.io.IOException"));
				updater.update("flaky", Map.of("no-retry-on[0]", "java.io.FileNotFoundException"));
				assertThat(retries.getPolicy("flaky").noRetryOn()).containsExactly(java.io.FileNotFoundException.class);
				updater.update("flaky", Map.of("no-retry-on", "java.io.IOException"));
				assertThat(retries.getPolicy("flaky").noRetryOn()).containsExactly(java.io.IOException.class);
				assertThatIllegalArgumentException()
					.isThrownBy(() -> updater.update("flaky", Map.of("retry-on[0].type", "java.io.IOException")))
					.withMessageContaining("resilience.retries.flaky.retry-on[0].type");
			});
	}

	@Test
	void runWithoutSpringCloudContextShouldHaveNoListener() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(EnvironmentChangeEvent.class)).run((context) -> {
			assertThat(context).hasSingleBean(ResilienceSettingsUpdater.class)
				.doesNotHaveBean(ResilienceEnvironmentChangeListener.class);
		});
	}

	private static void change(ConfigurableApplicationContext context, Map<String, Object> properties) {
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("changed" + System.nanoTime(), properties));
		context.publishEvent(new EnvironmentChangeEvent(context, Set.copyOf(properties.keySet())));
	}

	/** A method whose first delay needs a max-delay of at least 5s. */
	static class SlowRetry {

		@Retryable(name = "budgeted", delay = "5s")
		public void call() {
		}

	}

	/** A method that takes 3 of the limiter's calls at once. */
	static class Costly {

		@RateLimited(name = "partner", cost = 3)
		public void call() {
		}

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
