package dev.resilience.autoconfigure.refresh;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolSettings;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.retry.Backoff;
import dev.resilience.retry.RetryPolicy;
import dev.resilience.retry.RetryRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests that a run-time change (the endpoint's update, or a refresh of the environment) that sets
 * a property where it cannot take effect is refused naming it, the old settings staying, as
 * startup refuses it; and that a change which leaves properties of the environment without effect
 * (pausing turned off, a backoff that does not grow) sets them aside until it is undone.
 */
class InapplicablePropertiesRefreshTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RetryAutoConfiguration.class, PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class,
				ResilienceSettingsAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class)
		.withPropertyValues("resilience.rate-limiters.partner.windows[0].limit=3",
				"resilience.rate-limiters.partner.windows[0].period=1m",
				"resilience.rate-limiters.partner.pause-on-throttle.enabled=true",
				"resilience.rate-limiters.partner.pause-on-throttle.max-pause=1m",
				"resilience.retries.flaky.backoff=exponential", "resilience.retries.flaky.multiplier=3",
				"resilience.pools.workers.max-size=1");

	@Test
	void updateThatSetsAPropertyWithoutEffectShouldBeRefusedNamingItAndKeepTheOldSettings() {
		this.contextRunner.run((context) -> {
			ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			RateLimiterSettings limits = limiter.getSettings();
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("partner", Map.of("on-store-failure", "fail-closed")))
				.withMessageStartingWith("resilience.rate-limiters.partner.on-store-failure cannot take effect: ");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("partner", Map.of("windows[0].limit", "5", "lease-timeout", "30s")))
				.withMessageStartingWith("resilience.rate-limiters.partner.lease-timeout cannot take effect: ");
			assertThat(limiter.getSettings()).isSameAs(limits);
			RetryRegistry retries = context.getBean(RetryRegistry.class);
			RetryPolicy policy = retries.getPolicy("flaky");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("flaky", Map.of("backoff", "linear", "multiplier", "4")))
				.withMessageStartingWith("resilience.retries.flaky.multiplier cannot take effect: only exponential "
						+ "backoff grows by it, and backoff is linear");
			assertThat(retries.getPolicy("flaky")).isSameAs(policy);
			ConnectionPool<?> pool = context.getBean("workers", ConnectionPool.class);
			ConnectionPoolSettings pooling = pool.getSettings();
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("workers", Map.of("validate-on-checkout", "true")))
				.withMessageStartingWith("resilience.pools.workers.validate-on-checkout cannot take effect: the pool "
						+ "has no factory");
			assertThat(pool.getSettings()).isSameAs(pooling);
		});
	}

	@Test
	void refreshThatSetsAPropertyWithoutEffectShouldBeRefusedNamingItAndKeepTheOldSettings() {
		this.contextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			RateLimiterSettings limits = limiter.getSettings();
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("changed",
						Map.of("resilience.rate-limiters.partner.pause-on-throttle.enabled", "false")));
			assertThat(context.getBean(ResilienceSettingsUpdater.class)
				.refresh(Set.of("resilience.rate-limiters.partner.pause-on-throttle.enabled")))
				.singleElement()
				.asString()
				.startsWith("resilience.rate-limiters.partner.pause-on-throttle.max-pause cannot take effect: only "
						+ "applies when resilience.rate-limiters.partner.pause-on-throttle.enabled is true");
			assertThat(limiter.getSettings()).isSameAs(limits);
		});
	}

	@Test
	void updateThatLeavesPropertiesOfTheEnvironmentWithoutEffectShouldSetThemAsideUntilItIsUndone() {
		this.contextRunner.run((context) -> {
			ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			updater.update("partner", Map.of("pause-on-throttle.enabled", "false"));
			assertThat(limiter.getSettings().pauseOnThrottle().enabled()).isFalse();
			updater.update("partner", Map.of("pause-on-throttle.enabled", "true"));
			assertThat(limiter.getSettings().pauseOnThrottle().maxPause()).isEqualTo(Duration.ofMinutes(1));
			RetryRegistry retries = context.getBean(RetryRegistry.class);
			updater.update("flaky", Map.of("backoff", "fixed"));
			assertThat(retries.getPolicy("flaky").backoff().backoff()).isEqualTo(Backoff.FIXED);
			updater.update("flaky", Map.of("backoff", "exponential"));
			assertThat(retries.getPolicy("flaky").backoff().multiplier()).isEqualTo(3.0);
		});
	}

}
