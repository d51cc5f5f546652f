package dev.resilience.autoconfigure.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Auto-configuration of the Spring MVC answers to a pool's timeouts: {@code 503} and {@code 504}.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
public final class PoolTimeoutWebMvcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PoolTimeoutExceptionHandler resiliencePoolTimeoutExceptionHandler() {
		return new PoolTimeoutExceptionHandler();
	}

}
