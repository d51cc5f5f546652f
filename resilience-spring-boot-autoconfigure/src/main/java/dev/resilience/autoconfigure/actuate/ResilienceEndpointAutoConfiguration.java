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

import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.retry.RetryRegistry;

/**
 * Auto-configuration of the {@code resilience} Actuator endpoint and its web extension.
 */
@AutoConfiguration(after = { RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class,
		PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@ConditionalOnAvailableEndpoint(ResilienceEndpoint.class)
public final class ResilienceEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RateLimiterRegistry.class)
	ResilienceEndpoint resilienceEndpoint(RateLimiterRegistry rateLimiters, ObjectProvider<RetryRegistry> retries,
			ObjectProvider<PollSettingsRegistry> polls, ObjectProvider<ConnectionPool<?>> pools) {
		return new ResilienceEndpoint(rateLimiters, retries.getIfAvailable(), polls.getIfAvailable(),
				pools.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ResilienceEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	ResilienceEndpointWebExtension resilienceEndpointWebExtension(ResilienceEndpoint endpoint,
			ObjectProvider<ResilienceEvents> events, RateLimiterRegistry rateLimiters) {
		ResilienceEvents recent = events.getIfAvailable();
		if (recent != null && rateLimiters.getNames().contains(ResilienceEndpointWebExtension.EVENTS)) {
			throw new IllegalStateException("Rate limiter 'events' (resilience.rate-limiters.events) cannot be shown by "
					+ "GET /actuator/resilience/events, which shows the recent events: rename it");
		}
		return new ResilienceEndpointWebExtension(endpoint, recent);
	}

}
