package dev.resilience.autoconfigure.pool;

import io.micrometer.context.ContextSnapshotFactory;

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

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.support.AutoProxyRegistrar;
import dev.resilience.autoconfigure.support.GlobalContextRegistry;
import dev.resilience.autoconfigure.support.ResilienceAspect;

/**
 * Auto-configuration of pools with a deadline: a {@code ConnectionPool} bean per
 * {@code resilience.pools.<name>}, what carries the caller's context to the worker threads, and
 * the advisor that applies {@code @WithConnection}.
 */
@AutoConfiguration(after = ResilienceAutoConfiguration.class)
@EnableConfigurationProperties(PoolsProperties.class)
public final class ConnectionPoolAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	static ConnectionPoolRegistrar resilienceConnectionPoolRegistrar(Environment environment) {
		return new ConnectionPoolRegistrar(environment);
	}

	/**
	 * The accessors every context-propagation user registers (Micrometer observation, Spring
	 * Security and others, through {@link java.util.ServiceLoader}, and any registered with the
	 * global registry later), plus the SLF4J MDC, which context-propagation ships an accessor for but
	 * does not register. Read through the global registry at each capture, which is left as it is. A
	 * thread local the caller has not set is cleared on the worker, so work never sees another call's
	 * leftovers.
	 */
	@Bean
	@ConditionalOnMissingBean
	ContextSnapshotFactory resilienceContextSnapshotFactory() {
		return ContextSnapshotFactory.builder()
			.contextRegistry(new GlobalContextRegistry(getClass().getClassLoader()))
			.clearMissing(true)
			.build();
	}

	@Configuration(proxyBeanMethods = false)
	@Import(AutoProxyRegistrar.class)
	static class AnnotationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static WithConnectionMethods resilienceWithConnectionMethods(ConfigurableListableBeanFactory beanFactory) {
			return new WithConnectionMethods(beanFactory);
		}

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static WithConnectionAdvisor resilienceWithConnectionAdvisor(ObjectProvider<WithConnectionMethods> methods,
				Environment environment) {
			return new WithConnectionAdvisor(methods::getObject, ResilienceAspect.CONNECTION.order(environment));
		}

	}

}
