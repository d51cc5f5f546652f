package dev.resilience.autoconfigure.actuate;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * Auto-configuration of the {@code resilience} health contributor, when Spring Boot's health
 * support is on the classpath ({@code management.health.resilience.enabled} turns it off).
 */
@AutoConfiguration(after = { RateLimiterAutoConfiguration.class, ConnectionPoolAutoConfiguration.class })
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("resilience")
public final class ResilienceHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "resilienceHealthIndicator")
	@ConditionalOnBean(RateLimiterRegistry.class)
	ResilienceHealthIndicator resilienceHealthIndicator(RateLimiterRegistry rateLimiters,
			ObjectProvider<ConnectionPool<?>> pools) {
		return new ResilienceHealthIndicator(rateLimiters, pools.orderedStream().toList());
	}

}
