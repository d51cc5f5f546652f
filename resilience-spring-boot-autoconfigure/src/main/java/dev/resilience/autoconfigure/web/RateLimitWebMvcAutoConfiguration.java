package dev.resilience.autoconfigure.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;

/**
 * Auto-configuration of the Spring MVC support: the 429 handler (and the resolver that answers
 * for it without MVC's exception resolution where the answer is the same) and the
 * {@code RateLimit} header fields on admitted calls, those decided away from the request's thread
 * included.
 */
@AutoConfiguration(before = RateLimiterAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
public final class RateLimitWebMvcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitExceptionHandler resilienceRateLimitExceptionHandler() {
		return new RateLimitExceptionHandler();
	}

	@Bean
	@ConditionalOnBean(RateLimitExceptionHandler.class)
	RateLimitExceptionResolver resilienceRateLimitExceptionResolver(ApplicationContext context,
			RateLimitExceptionHandler handler) {
		return new RateLimitExceptionResolver(context, handler);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitResponseHeaders resilienceRateLimitResponseHeaders() {
		return new RateLimitResponseHeaders();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitAsyncResponseHeaders resilienceRateLimitAsyncResponseHeaders() {
		return new RateLimitAsyncResponseHeaders();
	}

}
