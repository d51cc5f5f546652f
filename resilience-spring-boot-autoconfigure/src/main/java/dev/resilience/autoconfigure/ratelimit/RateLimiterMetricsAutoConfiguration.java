package dev.resilience.autoconfigure.ratelimit;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.resilience.autoconfigure.support.ConditionalOnMeterRegistry;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * Auto-configuration of the rate-limiter meters, when Micrometer has a {@link MeterRegistry}: the
 * calls and waits recorded by {@link RateLimiterMetrics}, and the keys and concurrency limits gauged by
 * {@link RateLimiterKeyGauges}.
 */
@AutoConfiguration(before = RateLimiterAutoConfiguration.class,
		afterName = ConditionalOnMeterRegistry.METER_REGISTRY_AUTO_CONFIGURATION)
@ConditionalOnMeterRegistry
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
