package dev.resilience.autoconfigure.web;

import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.reactive.DispatcherHandler;

import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;

/**
 * Auto-configuration of the Spring WebFlux support: the 429 handlers (for handler methods and for
 * everything else) and the {@code RateLimit} header fields on admitted calls.
 */
@AutoConfiguration(before = RateLimiterAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({ DispatcherHandler.class, Mono.class })
public final class RateLimitWebFluxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebFluxExceptionHandler resilienceRateLimitWebFluxExceptionHandler() {
		return new RateLimitWebFluxExceptionHandler();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebExceptionHandler resilienceRateLimitWebExceptionHandler(ObjectProvider<ServerCodecConfigurer> codecs) {
		return new RateLimitWebExceptionHandler(codecs.getIfAvailable(ServerCodecConfigurer::create));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebFluxFilter resilienceRateLimitWebFluxFilter() {
		return new RateLimitWebFluxFilter();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebFluxListener resilienceRateLimitWebFluxListener() {
		return new RateLimitWebFluxListener();
	}

}
