package dev.resilience.autoconfigure.pool;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.resilience.autoconfigure.support.ConditionalOnMeterRegistry;
import dev.resilience.pool.ConnectionPool;

/**
 * Auto-configuration of the pool meters, when Micrometer has a {@link MeterRegistry}: the
 * checkout and operation timers of {@link ConnectionPoolMetrics} and the gauges of
 * {@link ConnectionPoolGauges}.
 */
@AutoConfiguration(before = ConnectionPoolAutoConfiguration.class,
		afterName = ConditionalOnMeterRegistry.METER_REGISTRY_AUTO_CONFIGURATION)
@ConditionalOnMeterRegistry
public final class ConnectionPoolMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ConnectionPoolMetrics resilienceConnectionPoolMetrics(MeterRegistry meterRegistry) {
		return new ConnectionPoolMetrics(meterRegistry);
	}

	@Bean
	@ConditionalOnMissingBean
	ConnectionPoolGauges resilienceConnectionPoolGauges(ObjectProvider<ConnectionPool<?>> pools,
			MeterRegistry meterRegistry) {
		return new ConnectionPoolGauges(pools, meterRegistry);
	}

}
