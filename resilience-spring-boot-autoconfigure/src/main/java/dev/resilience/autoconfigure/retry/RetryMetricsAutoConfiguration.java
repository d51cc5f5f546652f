package dev.resilience.autoconfigure.retry;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.resilience.autoconfigure.support.ConditionalOnMeterRegistry;

/**
 * Auto-configuration of the retry meters, when Micrometer has a {@link MeterRegistry}: calls and
 * attempts recorded by {@link RetryMetrics}.
 */
@AutoConfiguration(before = RetryAutoConfiguration.class,
		afterName = ConditionalOnMeterRegistry.METER_REGISTRY_AUTO_CONFIGURATION)
@ConditionalOnMeterRegistry
public final class RetryMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RetryMetrics resilienceRetryMetrics(MeterRegistry meterRegistry) {
		return new RetryMetrics(meterRegistry);
	}

}
