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

/**
 * Auto-configuration of the Spring WebFlux answers to a pool's timeouts: {@code 503} and
 * {@code 504}, for handler methods and for everything else.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({ DispatcherHandler.class, Mono.class })
public final class PoolTimeoutWebFluxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PoolTimeoutWebFluxExceptionHandler resiliencePoolTimeoutWebFluxExceptionHandler() {
		return new PoolTimeoutWebFluxExceptionHandler();
	}

	@Bean
	@ConditionalOnMissingBean
	PoolTimeoutWebExceptionHandler resiliencePoolTimeoutWebExceptionHandler(
			ObjectProvider<ServerCodecConfigurer> codecs) {
		return new PoolTimeoutWebExceptionHandler(codecs.getIfAvailable(ServerCodecConfigurer::create));
	}

}
