package dev.resilience.autoconfigure.poll;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the poll meters recorded by {@link PollMetrics}, when Micrometer has a
 * {@link MeterRegistry}.
 */
@AutoConfiguration(before = PollAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class PollMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PollMetrics resiliencePollMetrics(MeterRegistry meterRegistry) {
		return new PollMetrics(meterRegistry);
	}

}
