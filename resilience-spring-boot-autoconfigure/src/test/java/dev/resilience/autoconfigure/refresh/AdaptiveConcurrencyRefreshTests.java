package dev.resilience.autoconfigure.refresh;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A limiter's {@code max-concurrent} turned from a number to {@code adaptive} and back by
 * Spring Cloud's refresh (SPEC §11): the calls in flight keep their permits and return one each,
 * {@code adaptive-concurrency} changes apply, and a wrong value is refused with the old settings
 * kept.
 */
class AdaptiveConcurrencyRefreshTests {

	private static final String PREFIX = "resilience.rate-limiters.partner.";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				ResilienceSettingsAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class)
		.withPropertyValues(PREFIX + "max-concurrent=2");

	@Test
	void runWhenMaxConcurrentTurnsAdaptiveAndBackShouldKeepThePermitsHeld() {
		this.contextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			Permit first = limiter.acquire("k", 1);
			Permit second = limiter.acquire("k", 1);

			change(context, Map.of(PREFIX + "max-concurrent", "adaptive", PREFIX + "adaptive-concurrency.initial-limit", "3"));
			assertThat(limiter.getSettings().adaptiveConcurrency()).isNotNull();
			assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
			assertThat(limiter.inspect("k").getMaxConcurrent()).as("the key's first probe, at min-limit").isEqualTo(1);
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> limiter.acquire("k", 1));
			first.close();
			second.close();
			probe(context, limiter);
			assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(3);
			Permit third = limiter.acquire("k", 1);
			Permit fourth = limiter.acquire("k", 1);

			change(context, Map.of(PREFIX + "max-concurrent", "adaptive", PREFIX + "adaptive-concurrency.max-limit", "2",
					PREFIX + "adaptive-concurrency.initial-limit", "1"));
			assertThat(limiter.getSettings().maxConcurrent()).isEqualTo(2);
			assertThat(limiter.inspect("k").getMaxConcurrent()).as("probing under the new settings").isEqualTo(1);
			third.close();
			fourth.close();
			probe(context, limiter);
			assertThat(limiter.inspect("k").getMaxConcurrent()).as("the limit learnt, within max-limit").isEqualTo(2);
			third = limiter.acquire("k", 1);
			fourth = limiter.acquire("k", 1);
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> limiter.acquire("k", 1));

			change(context, Map.of(PREFIX + "max-concurrent", "3"));
			assertThat(limiter.getSettings().adaptiveConcurrency()).isNull();
			assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
			Permit fifth = limiter.acquire("k", 1);
			third.close();
			fourth.close();
			fifth.close();
			fifth.close();
			assertThat(limiter.inspect("k").getInFlight()).isZero();
		});
	}

	@Test
	void runWhenAnAdaptiveValueIsWrongShouldKeepTheOldSettings() {
		this.contextRunner.withPropertyValues(PREFIX + "max-concurrent=adaptive").run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			probe(context, limiter);
			RateLimiterSettings before = limiter.getSettings();
			change(context, Map.of(PREFIX + "adaptive-concurrency.min-limit", "0"));
			assertThat(limiter.getSettings()).isSameAs(before);
			change(context, Map.of(PREFIX + "adaptive-concurrency.initial-limit", "500"));
			assertThat(limiter.getSettings()).isSameAs(before);
			change(context, Map.of(PREFIX + "max-concurrent", "5", PREFIX + "adaptive-concurrency.max-limit", "9"));
			assertThat(limiter.getSettings()).isSameAs(before);
			assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(10);
		});
	}

	/** Runs the probe of key {@code k}: its limit is then the one it goes on from. */
	private static void probe(ConfigurableApplicationContext context, RateLimiter limiter) {
		AdaptiveProbe.run(limiter, "k", context.getBean(TestTicker.class)::advance, Duration.ofMillis(10));
	}

	/** Replaces the changed properties of the last change, as an edited configuration file would. */
	private static void change(ConfigurableApplicationContext context, Map<String, Object> properties) {
		MutablePropertySources sources = context.getEnvironment().getPropertySources();
		MapPropertySource previous = (MapPropertySource) sources.remove("changed");
		sources.addFirst(new MapPropertySource("changed", properties));
		Set<String> keys = new HashSet<>(properties.keySet());
		if (previous != null) {
			keys.addAll(previous.getSource().keySet());
		}
		context.publishEvent(new EnvironmentChangeEvent(context, keys));
	}

}
