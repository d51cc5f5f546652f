package dev.resilience.autoconfigure.ratelimit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
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
