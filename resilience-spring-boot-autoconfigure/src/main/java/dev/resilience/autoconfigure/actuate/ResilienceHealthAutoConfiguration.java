package dev.resilience.autoconfigure.actuate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.redis.RedisRateLimitStore;

/**
 * Auto-configuration of the {@code resilience} health contributor, when Spring Boot's health
 * support is on the classpath ({@code management.health.resilience.enabled} turns it off), and of
 * its place in the readiness group.
 */
// after the availability probes: their readiness group is the one this adds to
@AutoConfiguration(after = { RateLimiterAutoConfiguration.class, ConnectionPoolAutoConfiguration.class,
		AvailabilityProbesAutoConfiguration.class })
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("resilience")
public final class ResilienceHealthAutoConfiguration {

	private static final String READINESS_GROUP = "management.endpoint.health.group.readiness.";

	@Bean
	@ConditionalOnMissingBean(name = "resilienceHealthIndicator")
	@ConditionalOnBean(RateLimiterRegistry.class)
	ResilienceHealthIndicator resilienceHealthIndicator(RateLimiterRegistry rateLimiters,
			ObjectProvider<ConnectionPool<?>> pools) {
		return new ResilienceHealthIndicator(rateLimiters, pools.orderedStream().toList());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthEndpointGroupsPostProcessor.class)
	@ConditionalOnBean(RateLimiterRegistry.class)
	static class ReadinessConfiguration {

		/**
		 * Puts the contributor in the readiness group while a limiter decides in Redis, unless the
		 * application chose the group's members itself ({@code include} or {@code exclude}).
		 */
		@Bean
		@ConditionalOnMissingBean(name = "resilienceReadinessGroupsPostProcessor")
		HealthEndpointGroupsPostProcessor resilienceReadinessGroupsPostProcessor(Environment environment,
				ObjectProvider<RateLimiterRegistry> rateLimiters) {
			Binder binder = Binder.get(environment);
			boolean chosen = binder.bind(READINESS_GROUP + "include", Bindable.setOf(String.class)).isBound()
					|| binder.bind(READINESS_GROUP + "exclude", Bindable.setOf(String.class)).isBound();
			if (chosen) {
				return (groups) -> groups;
			}
			return (groups) -> new ResilienceReadinessGroups(groups, () -> rateLimiters.getObject()
				.getAll()
				.stream()
				.anyMatch((limiter) -> RedisRateLimitStore.TYPE.equals(limiter.getStoreType())));
		}

	}

}
