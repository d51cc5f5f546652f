package dev.resilience.autoconfigure.actuate;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ResilienceProperties;

/**
 * Auto-configuration of the recent events of {@code GET /actuator/resilience/events}: the
 * {@link ResilienceEvents} that every capability tells, when the {@code resilience} endpoint is
 * exposed over HTTP, sized by {@code resilience.events.*}, showing keys with
 * {@code resilience.include-keys}. The properties are bound even when it
 * is not, so that a wrong {@code resilience.events} key fails startup either way.
 */
@AutoConfiguration(after = ResilienceAutoConfiguration.class, before = ResilienceEndpointAutoConfiguration.class)
@EnableConfigurationProperties(ResilienceEventsProperties.class)
public final class ResilienceEventsAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Endpoint.class)
	@ConditionalOnAvailableEndpoint(value = ResilienceEndpoint.class, exposure = EndpointExposure.WEB)
	static class EventsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ResilienceEvents resilienceEvents(ResilienceEventsProperties properties, ResilienceProperties resilience,
				ObjectProvider<Clock> clock) {
			return new ResilienceEvents(properties.getEvents().getBufferSize(), resilience.keysIncluded(),
					clock.getIfUnique(Clock::systemUTC));
		}

	}

}
