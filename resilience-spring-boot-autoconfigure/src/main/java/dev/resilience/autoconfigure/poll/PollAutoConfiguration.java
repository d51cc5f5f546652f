package dev.resilience.autoconfigure.poll;

import java.util.LinkedHashMap;
import java.util.Map;

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

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.support.AutoProxyRegistrar;
import dev.resilience.autoconfigure.support.ResilienceAspect;
import dev.resilience.poll.PollListener;
import dev.resilience.poll.PollSettings;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.poll.PollUntil;

/**
 * Auto-configuration of polling: the {@link PollSettingsRegistry} built from
 * {@code resilience.polls.*}, and the advisor that applies {@link PollUntil @PollUntil}.
 */
@AutoConfiguration(after = ResilienceAutoConfiguration.class)
@EnableConfigurationProperties(PollsProperties.class)
public final class PollAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PollSettingsRegistry resiliencePollSettingsRegistry(PollsProperties properties) {
		Map<String, PollSettings> settings = new LinkedHashMap<>();
		properties.getPolls().forEach((name, poll) -> settings.put(name, poll.toSettings(name)));
		return PollSettingsRegistry.of(settings);
	}

	@Configuration(proxyBeanMethods = false)
	@Import(AutoProxyRegistrar.class)
	static class AnnotationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static PolledMethods resiliencePolledMethods(PollSettingsRegistry registry, Ticker ticker, Sleeper sleeper,
				ObjectProvider<PollListener> listeners, ConfigurableListableBeanFactory beanFactory) {
			return new PolledMethods(registry, ticker, sleeper, listeners.orderedStream().toList(), beanFactory);
		}

		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static PollUntilAdvisor resiliencePollUntilAdvisor(ObjectProvider<PolledMethods> methods, Environment environment) {
			return new PollUntilAdvisor(methods::getObject, ResilienceAspect.POLL.order(environment));
		}

	}

}
