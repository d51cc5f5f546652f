package dev.resilience.autoconfigure.poll;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.resilience.autoconfigure.support.ConditionalOnMeterRegistry;

/**
 * Auto-configuration of the poll meters recorded by {@link PollMetrics}, when Micrometer has a
 * {@link MeterRegistry}.
 */
@AutoConfiguration(before = PollAutoConfiguration.class,
		afterName = ConditionalOnMeterRegistry.METER_REGISTRY_AUTO_CONFIGURATION)
@ConditionalOnMeterRegistry
public final class PollMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PollMetrics resiliencePollMetrics(MeterRegistry meterRegistry) {
		return new PollMetrics(meterRegistry);
	}

}
