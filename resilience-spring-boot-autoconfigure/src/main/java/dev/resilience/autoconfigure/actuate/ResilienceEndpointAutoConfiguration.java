package dev.resilience.autoconfigure.actuate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * Auto-configuration of the {@code resilience} Actuator endpoint and its web extension.
 */
@AutoConfiguration(after = { RateLimiterAutoConfiguration.class, ConnectionPoolAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@ConditionalOnAvailableEndpoint(ResilienceEndpoint.class)
public final class ResilienceEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RateLimiterRegistry.class)
	ResilienceEndpoint resilienceEndpoint(RateLimiterRegistry rateLimiters, ObjectProvider<ConnectionPool<?>> pools) {
		return new ResilienceEndpoint(rateLimiters, pools.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ResilienceEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	ResilienceEndpointWebExtension resilienceEndpointWebExtension(ResilienceEndpoint endpoint) {
		return new ResilienceEndpointWebExtension(endpoint);
	}

}
