package dev.resilience.autoconfigure.ratelimit;

import java.time.Clock;

import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ResilienceProperties;
import dev.resilience.autoconfigure.support.AutoProxyRegistrar;
import dev.resilience.autoconfigure.support.ResilienceAspect;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.ThrottleSignal;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

/**
 * Auto-configuration of rate limiting: the {@link RateLimiterRegistry} built from
 * {@code resilience.rate-limiters.*}, and the advisor that applies {@code @RateLimited}.
 */
@AutoConfiguration(after = ResilienceAutoConfiguration.class)
@EnableConfigurationProperties(RateLimitingProperties.class)
public final class RateLimiterAutoConfiguration {

	/** A class of Netflix's concurrency-limits, which {@code max-concurrent: adaptive} needs. */
	private static final String ADAPTIVE_ALGORITHMS = "com.netflix.concurrency.limits.Limit";

	@Bean
	@ConditionalOnMissingBean
	RateLimiterRegistry resilienceRateLimiterRegistry(RateLimitingProperties properties, ResilienceProperties resilience,
			Ticker ticker, Sleeper sleeper, ObjectProvider<RateLimitListener> listeners,
			ObjectProvider<RateLimitStoreRegistration> stores, ResilienceObservations observations,
			ResourceLoader resourceLoader) {
		StoreRateLimiterRegistry.Builder builder = StoreRateLimiterRegistry.builder()
			.ticker(ticker)
			.observations(observations)
			.sleeper(sleeper)
			.stackTraces(properties.isRateLimitStackTraces())
			.includeKeys(resilience.keysIncluded());
		listeners.orderedStream().forEach(builder::listener);
		Set<String> types = new LinkedHashSet<>(Set.of(RateLimiterSettings.MEMORY_STORE));
		stores.orderedStream().forEach((store) -> {
			builder.store(store.type(), store.factory());
			types.add(store.type());
		});
		properties.checkRedisUsed();
		properties.getRateLimiters().forEach((name, limiter) -> {
			// the properties first: a mistake in them is named before what the class path lacks
			RateLimiterSettings settings = limiter.toSettings(name);
			if (!types.contains(limiter.getStore().id())) {
				// Only a store from an optional library can be missing: redis.
				throw new IllegalStateException("resilience.rate-limiters." + name + ".store is " + limiter.getStore().id()
						+ ", which needs Spring Data Redis with Lettuce (spring-boot-starter-data-redis) and its "
						+ "LettuceConnectionFactory; the stores available here are " + types);
			}
			if (RateLimiterProperties.isAdaptive(limiter.getMaxConcurrent())
					&& !ClassUtils.isPresent(ADAPTIVE_ALGORITHMS, resourceLoader.getClassLoader())) {
				// Netflix's algorithms are an optional dependency of ours.
				throw new IllegalStateException("resilience.rate-limiters." + name + ".max-concurrent is adaptive, which "
						+ "needs com.netflix.concurrency-limits:concurrency-limits-core on the class path: add that "
						+ "dependency, or set a number");
			}
			builder.limiter(name, settings);
		});
		return builder.build();
	}

	@Configuration(proxyBeanMethods = false)
	@Import(AutoProxyRegistrar.class)
	static class AnnotationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static RateLimitedMethods resilienceRateLimitedMethods(RateLimiterRegistry registry,
				ConfigurableListableBeanFactory beanFactory, ObjectProvider<ThrottleSignal> signals,
				ObjectProvider<Clock> clock) {
			return new RateLimitedMethods(registry, beanFactory, signals.orderedStream().toList(),
					clock.getIfUnique(Clock::systemUTC));
		}

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static RateLimitedAdvisor resilienceRateLimitedAdvisor(ObjectProvider<RateLimitedMethods> methods, Environment environment) {
			return new RateLimitedAdvisor(methods::getObject, ResilienceAspect.RATE_LIMIT.order(environment));
		}

	}

}
