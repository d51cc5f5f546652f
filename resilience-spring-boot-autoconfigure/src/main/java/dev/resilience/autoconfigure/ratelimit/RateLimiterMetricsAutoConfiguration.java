package dev.resilience.autoconfigure.ratelimit;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the rate-limiter meters, when Micrometer has a {@link MeterRegistry}.
 */
@AutoConfiguration(before = RateLimiterAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class RateLimiterMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimiterMetrics resilienceRateLimiterMetrics(MeterRegistry meterRegistry) {
		return new RateLimiterMetrics(meterRegistry);
	}

}
