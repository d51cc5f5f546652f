package dev.resilience.autoconfigure.retry;

import java.time.Clock;
import java.util.List;

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
import org.springframework.util.ClassUtils;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.support.AutoProxyRegistrar;
import dev.resilience.autoconfigure.support.ResilienceAspect;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.retry.RetryAfter;
import dev.resilience.retry.RetryListener;
import dev.resilience.retry.RetryRegistry;

/**
 * Auto-configuration of retrying: the {@link RetryRegistry} built from
 * {@code resilience.retries.*}, with every {@link RetryListener} bean, and the advisor that
 * applies {@code @Retryable}. Retry-After is read from rate-limit rejections and, with Spring's
 * HTTP clients present, from their error responses; HTTP-dates are read by the application's
 * {@link Clock} bean when there is exactly one, else by the system clock.
 */
@AutoConfiguration(after = ResilienceAutoConfiguration.class)
@EnableConfigurationProperties(RetriesProperties.class)
public final class RetryAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RetryRegistry resilienceRetryRegistry(RetriesProperties properties, Ticker ticker, Sleeper sleeper,
			ObjectProvider<RetryListener> listeners, ObjectProvider<Clock> clock,
			ConfigurableListableBeanFactory beanFactory, ResilienceObservations observations) {
		// The application's class loader decides, not the starter's: they differ in some deployments.
		ClassLoader classLoader = beanFactory.getBeanClassLoader();
		RetryAfter rateLimits = RetryAfter.rateLimits();
		RetryAfter retryAfter = ClassUtils.isPresent("org.springframework.web.client.RestClientResponseException",
				classLoader)
						? rateLimits.or(new HttpRetryAfter(clock.getIfUnique(Clock::systemUTC), ClassUtils.isPresent(
								"org.springframework.web.reactive.function.client.WebClientResponseException", classLoader)))
						: rateLimits;
		List<RetryListener> retryListeners = listeners.orderedStream().toList();
		RetryRegistry.Builder builder = RetryRegistry.builder().ticker(ticker).retries((retry) -> {
			retry.sleeper(sleeper).retryAfter(retryAfter).observations(observations);
			retryListeners.forEach(retry::listener);
		});
		properties.getRetries().forEach((name, policy) -> builder.policy(name, policy.toSettings(name)));
		return builder.build();
	}

	@Configuration(proxyBeanMethods = false)
	@Import(AutoProxyRegistrar.class)
	static class AnnotationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static RetryableMethods resilienceRetryableMethods(RetryRegistry registry,
				ConfigurableListableBeanFactory beanFactory) {
			return new RetryableMethods(registry, beanFactory);
		}

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static RetryableAdvisor resilienceRetryableAdvisor(ObjectProvider<RetryableMethods> methods,
				Environment environment) {
			return new RetryableAdvisor(methods::getObject, ResilienceAspect.RETRY.order(environment));
		}

	}

}
