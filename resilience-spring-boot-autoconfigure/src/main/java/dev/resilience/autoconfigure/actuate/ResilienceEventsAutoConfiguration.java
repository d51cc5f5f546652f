package dev.resilience.autoconfigure.actuate;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ResilienceProperties;

/**
 * Auto-configuration of the recent events of {@code GET /actuator/resilience/events}: the
 * {@link ResilienceEvents} that every capability tells, when the {@code resilience} endpoint is
 * exposed over HTTP, sized by {@code resilience.events.*}.
 */
@AutoConfiguration(after = ResilienceAutoConfiguration.class, before = ResilienceEndpointAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnAvailableEndpoint(value = ResilienceEndpoint.class, exposure = EndpointExposure.WEB)
public final class ResilienceEventsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ResilienceEvents resilienceEvents(ResilienceProperties properties, ObjectProvider<Clock> clock) {
		ResilienceProperties.Events events = properties.getEvents();
		return new ResilienceEvents(events.getBufferSize(), events.isIncludeKeys(), clock.getIfUnique(Clock::systemUTC));
	}

}
