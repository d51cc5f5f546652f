package dev.resilience.autoconfigure;

import java.util.concurrent.ScheduledExecutorService;

import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.support.ContinuationScheduler;
import dev.resilience.observation.ResilienceObservationConvention;
import dev.resilience.observation.ResilienceObservations;

/**
 * Auto-configuration of what every resilience capability shares: the properties, the clock, the
 * way callers wait, and the scheduler of asynchronous calls' continuations (on virtual threads
 * when {@code spring.threads.virtual.enabled} is set on JDK 21+). Define a {@link Ticker} or
 * {@link Sleeper} bean, or a {@link ScheduledExecutorService} named
 * {@value ContinuationScheduler#BEAN_NAME}, to replace them, as tests do to control time.
 */
@AutoConfiguration
@EnableConfigurationProperties(ResilienceProperties.class)
public final class ResilienceAutoConfiguration {

	@Bean
	static ResiliencePropertiesCheck resiliencePropertiesCheck(ListableBeanFactory beanFactory, Environment environment) {
		return new ResiliencePropertiesCheck(beanFactory, environment);
	}

	@Bean
	@ConditionalOnMissingBean
	Ticker resilienceTicker() {
		return Ticker.system();
	}

	@Bean
	@ConditionalOnMissingBean
	Sleeper resilienceSleeper() {
		return Sleeper.system();
	}

	@Bean
	@ConditionalOnMissingBean
	ResilienceObservations resilienceObservations(ObjectProvider<ObservationRegistry> registry,
			ObjectProvider<ResilienceObservationConvention> convention) {
		return ResilienceObservations.of(registry.getIfUnique(() -> ObservationRegistry.NOOP),
				convention.getIfUnique());
	}

	/**
	 * Keeps Boot's meter handler from making timers of the starter's observations (first in its
	 * group, so the handlers after it are not asked).
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterObservationHandler.class)
	static class ObservationMetersConfiguration {

		@Bean
		@Order(Ordered.HIGHEST_PRECEDENCE)
		@ConditionalOnMissingBean
		ResilienceMeterObservationHandler resilienceMeterObservationHandler() {
			return new ResilienceMeterObservationHandler();
		}

	}

	@Bean(name = ContinuationScheduler.BEAN_NAME, destroyMethod = "shutdownNow")
	@ConditionalOnMissingBean(name = ContinuationScheduler.BEAN_NAME)
	ScheduledExecutorService resilienceScheduler(Environment environment) {
		return ContinuationScheduler.create(Threading.VIRTUAL.isActive(environment));
	}

}
