package dev.resilience.autoconfigure.ratelimit;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * Auto-configuration of the rate-limiter meters, when Micrometer has a {@link MeterRegistry}: the
 * calls and waits recorded by {@link RateLimiterMetrics}, and the keys gauged by
 * {@link RateLimiterKeyGauges}.
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

	@Bean
	@ConditionalOnMissingBean
	RateLimiterKeyGauges resilienceRateLimiterKeyGauges(ObjectProvider<RateLimiterRegistry> limiters,
			MeterRegistry meterRegistry) {
		return new RateLimiterKeyGauges(limiters, meterRegistry);
	}

}
