package dev.resilience.autoconfigure.retry;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the retry meters, when Micrometer has a {@link MeterRegistry}: calls and
 * attempts recorded by {@link RetryMetrics}.
 */
@AutoConfiguration(before = RetryAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class RetryMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RetryMetrics resilienceRetryMetrics(MeterRegistry meterRegistry) {
		return new RetryMetrics(meterRegistry);
	}

}
