package dev.resilience.autoconfigure.refresh;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.poll.PolledMethods;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.pool.WithConnectionMethods;
import dev.resilience.autoconfigure.ratelimit.RateLimitedMethods;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryableMethods;
import dev.resilience.autoconfigure.web.client.HttpClientRateLimitAutoConfiguration;
import dev.resilience.autoconfigure.web.client.HttpClientRoutes;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.retry.RetryRegistry;

/**
 * Auto-configuration of settings changed at run time: the {@link ResilienceSettingsUpdater} the
 * endpoint's write operation uses, and, with Spring Cloud Context, the listener that applies a
 * change of {@code resilience.*} properties when an {@code EnvironmentChangeEvent} is published.
 */
@AutoConfiguration(after = { RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class,
		PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class, HttpClientRateLimitAutoConfiguration.class })
public final class ResilienceSettingsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ResilienceSettingsUpdater resilienceSettingsUpdater(ConfigurableEnvironment environment,
			ObjectProvider<RateLimiterRegistry> rateLimiters, ObjectProvider<RetryRegistry> retries,
			ObjectProvider<PollSettingsRegistry> polls, ObjectProvider<ConnectionPool<?>> pools,
			ObjectProvider<RateLimitedMethods> rateLimitedMethods, ObjectProvider<RetryableMethods> retryableMethods,
			ObjectProvider<PolledMethods> polledMethods, ObjectProvider<WithConnectionMethods> withConnectionMethods,
			ObjectProvider<HttpClientRoutes> httpClientRoutes) {
		return new ResilienceSettingsUpdater(environment, rateLimiters, retries, polls, pools, rateLimitedMethods,
				retryableMethods, polledMethods, withConnectionMethods, httpClientRoutes);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(EnvironmentChangeEvent.class)
	static class EnvironmentChangeConfiguration {

		@Bean
		ResilienceEnvironmentChangeListener resilienceEnvironmentChangeListener(ResilienceSettingsUpdater updater) {
			return new ResilienceEnvironmentChangeListener(updater);
		}

	}

}
