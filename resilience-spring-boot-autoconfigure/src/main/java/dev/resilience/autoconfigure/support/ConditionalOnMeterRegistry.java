package dev.resilience.autoconfigure.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;

/**
 * The condition of every capability's metrics auto-configuration: Micrometer is present and has a
 * {@code MeterRegistry} bean. Such a configuration is ordered after
 * {@value #METER_REGISTRY_AUTO_CONFIGURATION}, which defines it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ConditionalOnClass(name = ConditionalOnMeterRegistry.METER_REGISTRY)
@ConditionalOnBean(type = ConditionalOnMeterRegistry.METER_REGISTRY)
public @interface ConditionalOnMeterRegistry {

	/** The auto-configuration that defines the {@code MeterRegistry} bean. */
	String METER_REGISTRY_AUTO_CONFIGURATION = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration";

	/** Micrometer's registry type. */
	String METER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";

}
