package dev.resilience.autoconfigure.ratelimit;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ResilienceProperties;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * Auto-configuration of rate limiting: the {@link RateLimiterRegistry} built from
 * {@code resilience.rate-limiters.*}, and the {@code @RateLimited} aspect when AspectJ is present.
 */
@AutoConfiguration(after = ResilienceAutoConfiguration.class)
public final class RateLimiterAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimiterRegistry rateLimiterRegistry(ResilienceProperties properties, Ticker ticker, Sleeper sleeper,
			ObjectProvider<RateLimitListener> listeners) {
		RateLimiterRegistry.Builder builder = RateLimiterRegistry.builder().ticker(ticker).sleeper(sleeper);
		listeners.orderedStream().forEach(builder::listener);
		properties.getRateLimiters().forEach((name, limiter) -> builder.limiter(name, limiter.toSettings(name)));
		return builder.build();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.aspectj.weaver.Advice")
	static class AspectConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitedMethods rateLimitedMethods(RateLimiterRegistry registry, ConfigurableListableBeanFactory beanFactory) {
			return new RateLimitedMethods(registry, beanFactory);
		}

		@Bean
		@ConditionalOnMissingBean
		RateLimitedAspect rateLimitedAspect(RateLimitedMethods methods, ResilienceProperties properties) {
			return new RateLimitedAspect(methods, properties.getAspectOrder().getRateLimit());
		}

	}

}
