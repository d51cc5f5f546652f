package dev.resilience.autoconfigure.actuate;

import java.time.Clock;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.WebFilter;

import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.poll.PolledMethods;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.pool.WithConnectionMethods;
import dev.resilience.autoconfigure.refresh.ResilienceSettingsAutoConfiguration;
import dev.resilience.autoconfigure.refresh.ResilienceSettingsUpdater;
import dev.resilience.autoconfigure.ratelimit.RateLimitedMethods;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterProperties;
import dev.resilience.autoconfigure.ratelimit.RateLimitingProperties;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryableMethods;
import dev.resilience.autoconfigure.web.client.HttpClientRoutes;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.retry.RetryRegistry;

/**
 * Auto-configuration of the {@code resilience} Actuator endpoint and its web extension. The end
 * of a key's pause is told by the application's {@link Clock} bean when there is exactly one, else
 * by the system clock.
 */
@AutoConfiguration(after = { RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class,
		PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class, ResilienceSettingsAutoConfiguration.class })
@ConditionalOnClass(Endpoint.class)
@ConditionalOnAvailableEndpoint(ResilienceEndpoint.class)
public final class ResilienceEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(RateLimiterRegistry.class)
	ResilienceEndpoint resilienceEndpoint(RateLimiterRegistry rateLimiters, ObjectProvider<RetryRegistry> retries,
			ObjectProvider<PollSettingsRegistry> polls, ObjectProvider<ConnectionPool<?>> pools,
			ObjectProvider<RateLimitingProperties> rateLimitingProperties, ObjectProvider<HttpClientRoutes> routes,
			ObjectProvider<Clock> clock) {
		return new ResilienceEndpoint(rateLimiters, retries.getIfAvailable(), polls.getIfAvailable(),
				pools.orderedStream().toList(), httpClients(rateLimitingProperties.getIfAvailable(), routes.getIfAvailable()),
				clock.getIfUnique(Clock::systemUTC));
	}

	/**
	 * A limiter's {@code http-client} settings in force: the routes' when Spring's HTTP clients are
	 * under limiters (they change at run time), else as bound (no host is routed then).
	 */
	private static Function<String, RateLimiterProperties.@Nullable HttpClient> httpClients(
			@Nullable RateLimitingProperties properties, @Nullable HttpClientRoutes routes) {
		if (properties == null) {
			return (name) -> null;
		}
		return (name) -> {
			RateLimiterProperties limiter = properties.getRateLimiters().get(name);
			if (limiter == null) {
				return null;
			}
			return (routes != null) ? routes.settingsOf(name) : limiter.getHttpClient();
		};
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ResilienceEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	ResilienceEndpointWebExtension resilienceEndpointWebExtension(ResilienceEndpoint endpoint,
			ObjectProvider<ResilienceEvents> events, RateLimiterRegistry rateLimiters,
			ObjectProvider<ResilienceSettingsUpdater> updater, ObjectProvider<RetryableMethods> retryableMethods,
			ObjectProvider<PolledMethods> polledMethods, ObjectProvider<RateLimitedMethods> rateLimitedMethods,
			ObjectProvider<WithConnectionMethods> withConnectionMethods, ObjectProvider<RetryRegistry> retries) {
		ResilienceEvents recent = events.getIfAvailable();
		if (recent != null && rateLimiters.getNames().contains(ResilienceEndpointWebExtension.EVENTS)) {
			throw new IllegalStateException("Rate limiter 'events' (resilience.rate-limiters.events) cannot be shown by "
					+ "GET /actuator/resilience/events, which shows the recent events: rename it");
		}
		if (rateLimiters.getNames().contains(ResilienceEndpointWebExtension.METHODS)) {
			throw new IllegalStateException("Rate limiter 'methods' (resilience.rate-limiters.methods) cannot be shown "
					+ "by GET /actuator/resilience/methods, which shows the annotated methods: rename it");
		}
		ResilienceMethods methods = new ResilienceMethods(retryableMethods.getIfAvailable(),
				polledMethods.getIfAvailable(), rateLimitedMethods.getIfAvailable(),
				withConnectionMethods.getIfAvailable(), retries.getIfAvailable());
		return new ResilienceEndpointWebExtension(endpoint, recent, updater.getIfAvailable(), methods);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(OncePerRequestFilter.class)
	@ConditionalOnAvailableEndpoint(endpoint = ResilienceEndpoint.class, exposure = EndpointExposure.WEB)
	static class ServletWriteBodyConfiguration {

		@Bean
		ResilienceWriteBodyFilter resilienceWriteBodyFilter(Environment environment) {
			return new ResilienceWriteBodyFilter(endpointPath(environment));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(WebFilter.class)
	@ConditionalOnAvailableEndpoint(endpoint = ResilienceEndpoint.class, exposure = EndpointExposure.WEB)
	static class ReactiveWriteBodyConfiguration {

		@Bean
		ResilienceWriteBodyWebFilter resilienceWriteBodyWebFilter(Environment environment) {
			return new ResilienceWriteBodyWebFilter(endpointPath(environment));
		}

	}

	/** The path of the endpoint, such as {@code /actuator/resilience}. */
	static String endpointPath(Environment environment) {
		String basePath = environment.getProperty("management.endpoints.web.base-path", "/actuator");
		String path = environment.getProperty("management.endpoints.web.path-mapping.resilience", "resilience");
		// as Actuator reads it: a trailing slash is dropped, so "/" is the root
		return (basePath.endsWith("/") ? basePath.substring(0, basePath.length() - 1) : basePath) + "/" + path;
	}

}
