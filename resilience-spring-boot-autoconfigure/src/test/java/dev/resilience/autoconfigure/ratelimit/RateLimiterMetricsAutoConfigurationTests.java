package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.refresh.ResilienceSettingsAutoConfiguration;
import dev.resilience.autoconfigure.refresh.ResilienceSettingsUpdater;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimiterMetricsAutoConfiguration}.
 */
class RateLimiterMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RateLimiterMetricsAutoConfiguration.class))
		.withPropertyValues("resilience.rate-limiters.api.windows[0].limit=1",
				"resilience.rate-limiters.api.windows[0].period=5s");

	@Test
	void runWithoutMeterRegistryShouldNotProvideMetrics() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(RateLimiterRegistry.class)
			.doesNotHaveBean(RateLimiterMetrics.class));
	}

	@Test
	void runWithMeterRegistryShouldProvideMetricsAndRegistryShouldUseThem() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(RateLimiterMetrics.class);
			context.getBean(RateLimiterRegistry.class).get("api").tryAcquire("", 1);
			assertThat(context.getBean(MeterRegistry.class)
				.get(RateLimiterMetrics.CALLS)
				.tags("name", "api", "outcome", "permitted")
				.counter()
				.count()).isEqualTo(1.0);
		});
	}

	@Test
	void runWithMeterRegistryShouldGaugeTheKeysOfEachLimiter() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("resilience.rate-limiters.other.max-concurrent=1")
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimiterKeyGauges.class);
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get(RateLimiterKeyGauges.KEYS).tags("name", "api", "store", "memory").gauge().value())
					.isZero();
				registry.get("api").tryAcquire("alice", 1);
				registry.get("api").tryAcquire("bob", 1);
				assertThat(meters.get(RateLimiterKeyGauges.KEYS).tags("name", "api", "store", "memory").gauge().value())
					.isEqualTo(2.0);
				assertThat(meters.get(RateLimiterKeyGauges.KEYS).tags("name", "other").gauge().value()).isZero();
				assertThat(meters.get(RateLimiterKeyGauges.KEYS).gauges()).hasSize(2);
			});
	}

	@Test
	void runWithMeterRegistryShouldGaugeTheAdaptiveLimitAsTheLowestOfTheKeys() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withUserConfiguration(TestTimeConfiguration.class)
			.withPropertyValues("resilience.rate-limiters.llm.max-concurrent=adaptive",
					"resilience.rate-limiters.llm.adaptive-concurrency.initial-limit=10",
					"resilience.rate-limiters.llm.adaptive-concurrency.max-limit=50",
					"resilience.rate-limiters.fixed.max-concurrent=4")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("llm");
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				TestTicker ticker = context.getBean(TestTicker.class);
				assertThat(concurrencyLimit(meters, "llm")).as("no key held yet: initial-limit").isEqualTo(10.0);
				call(limiter, ticker, "alice", false);
				assertThat(concurrencyLimit(meters, "llm")).as("alice's first probe: min-limit").isEqualTo(1.0);
				AdaptiveProbe.run(limiter, "alice", ticker::advance, Duration.ofMillis(10));
				AdaptiveProbe.run(limiter, "bob", ticker::advance, Duration.ofMillis(10));
				for (int i = 0; i < 5; i++) {
					call(limiter, ticker, "bob", true); // each drop cuts to nine tenths: 9, 8, 7, 6, 5
				}
				assertThat(limiter.inspect("bob").getMaxConcurrent()).isEqualTo(5);
				assertThat(limiter.inspect("alice").getMaxConcurrent()).isEqualTo(10);
				assertThat(concurrencyLimit(meters, "llm")).isEqualTo(5.0);
				assertThat(concurrencyLimit(meters, "fixed")).isEqualTo(4.0);
				assertThat(meters.find(RateLimiterKeyGauges.CONCURRENCY_LIMIT).tag("name", "api").gauge())
					.as("a limiter without max-concurrent").isNull();
				assertThat(meters.get(RateLimiterKeyGauges.CONCURRENCY_LIMIT).gauges())
					.allSatisfy((gauge) -> assertThat(gauge.getId().getTags()).extracting(Tag::getKey)
						.containsExactly("name"));
			});
	}

	@Test
	void runWhenALimiterIsTurnedAdaptiveAtRunTimeShouldGaugeItsAdaptiveLimit() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withConfiguration(AutoConfigurations.of(ResilienceSettingsAutoConfiguration.class))
			.withUserConfiguration(TestTimeConfiguration.class)
			.withPropertyValues("resilience.rate-limiters.llm.max-concurrent=4")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("llm");
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				TestTicker ticker = context.getBean(TestTicker.class);
				assertThat(concurrencyLimit(meters, "llm")).isEqualTo(4.0);
				context.getBean(ResilienceSettingsUpdater.class)
					.update("llm", Map.of("max-concurrent", "adaptive"));
				assertThat(concurrencyLimit(meters, "llm")).as("initial-limit by default").isEqualTo(10.0);
				AdaptiveProbe.run(limiter, "alice", ticker::advance, Duration.ofMillis(10));
				assertThat(concurrencyLimit(meters, "llm")).isEqualTo(10.0);
				call(limiter, ticker, "alice", true);
				assertThat(concurrencyLimit(meters, "llm")).isEqualTo(9.0);
				context.getBean(ResilienceSettingsUpdater.class).update("llm", Map.of("max-concurrent", "3"));
				assertThat(concurrencyLimit(meters, "llm")).isEqualTo(3.0);
			});
	}

	/** One call that takes 10 ms, ended with a drop or not. */
	private static void call(RateLimiter limiter, TestTicker ticker, String key, boolean dropped) {
		Permit permit = limiter.acquire(key, 1, Duration.ZERO);
		ticker.advance(Duration.ofMillis(10));
		if (dropped) {
			permit.recordDrop();
		}
		permit.close();
		ticker.advance(Duration.ofMillis(1));
	}

	private static double concurrencyLimit(MeterRegistry meters, String name) {
		return meters.get(RateLimiterKeyGauges.CONCURRENCY_LIMIT).tags("name", name).gauge().value();
	}

	@Test
	void runWithoutMeterRegistryShouldNotGaugeKeys() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(RateLimiterKeyGauges.class));
	}

	@Test
	void runWithMeterRegistryButWithoutMicrometerShouldNotProvideMetrics() {
		this.contextRunner.withBean(SimpleMeterRegistry.class)
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimiterMetrics.class));
	}

	@Test
	void runWhenUserDefinesMetricsShouldBackOff() {
		SimpleMeterRegistry meterRegistry = new SimpleMeterRegistry();
		RateLimiterMetrics own = new RateLimiterMetrics(meterRegistry);
		this.contextRunner.withBean(SimpleMeterRegistry.class, () -> meterRegistry)
			.withBean("ownMetrics", RateLimiterMetrics.class, () -> own)
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimiterMetrics.class).hasBean("ownMetrics");
				context.getBean(RateLimiterRegistry.class).get("api").tryAcquire("", 1);
				assertThat(meterRegistry.get(RateLimiterMetrics.CALLS).tag("outcome", "permitted").counter().count())
					.isEqualTo(1.0);
			});
	}

}
