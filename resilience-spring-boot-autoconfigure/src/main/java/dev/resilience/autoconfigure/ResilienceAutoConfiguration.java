package dev.resilience.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;

/**
 * Auto-configuration of what every resilience capability shares: the properties, the clock and
 * the way callers wait. Define a {@link Ticker} or {@link Sleeper} bean to replace them, as
 * tests do to control time.
 */
@AutoConfiguration
@EnableConfigurationProperties(ResilienceProperties.class)
public final class ResilienceAutoConfiguration {

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

}
