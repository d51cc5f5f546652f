package dev.resilience.autoconfigure.web.client;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimitingProperties;
import dev.resilience.autoconfigure.support.ContinuationScheduler;
import dev.resilience.autoconfigure.support.PropertyErrors;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * Auto-configuration of rate limits on Spring Boot's HTTP clients, when some limiter sets
 * {@code http-client.hosts}: the {@link HttpClientRoutes}, and customizers that add the
 * interceptor to every {@code RestClient.Builder} and {@code RestTemplateBuilder} and the exchange
 * filter to every {@code WebClient.Builder} Boot makes. An HTTP-date {@code Retry-After} is read
 * against the application's {@link Clock} bean when there is exactly one, else the system clock.
 */
@AutoConfiguration(after = RateLimiterAutoConfiguration.class)
@Conditional(OnHttpClientPropertiesCondition.class)
public final class HttpClientRateLimitAutoConfiguration {

	private static final String REST_CLIENT_CUSTOMIZER = "org.springframework.boot.restclient.RestClientCustomizer";

	private static final String WEB_CLIENT_CUSTOMIZER = "org.springframework.boot.webclient.WebClientCustomizer";

	@Bean
	@ConditionalOnMissingBean
	HttpClientRoutes resilienceHttpClientRoutes(RateLimitingProperties properties, RateLimiterRegistry registry,
			ConfigurableListableBeanFactory beanFactory) {
		HttpClientRoutes routes = HttpClientRoutes.of(properties.getRateLimiters(), registry);
		ClassLoader classLoader = beanFactory.getBeanClassLoader();
		if (!ClassUtils.isPresent(REST_CLIENT_CUSTOMIZER, classLoader)
				&& !ClassUtils.isPresent(WEB_CLIENT_CUSTOMIZER, classLoader)) {
			// Nothing would decorate a client: the hosts would silently go unlimited. Some limiter
			// lists hosts, as the condition matched and a key without hosts is refused above.
			String limiter = properties.getRateLimiters()
				.entrySet()
				.stream()
				.filter((entry) -> !entry.getValue().getHttpClient().getHosts().isEmpty())
				.map(Map.Entry::getKey)
				.findFirst()
				.orElseThrow();
			throw new IllegalStateException(PropertyErrors.property(
					"resilience.rate-limiters." + limiter + ".http-client.hosts",
					"needs Spring Boot's RestClient, RestTemplate or WebClient support "
							+ "(spring-boot-restclient or spring-boot-webclient, as their starters bring), "
							+ "whose builders' requests it limits; add one or remove the hosts"));
		}
		return routes;
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ RestClient.class, RestClientCustomizer.class })
	static class RestClientConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitingRequestInterceptor resilienceRateLimitingRequestInterceptor(HttpClientRoutes routes,
				ObjectProvider<Clock> clock) {
			return new RateLimitingRequestInterceptor(routes, clock.getIfUnique(Clock::systemUTC));
		}

		@Bean
		@ConditionalOnMissingBean(name = "resilienceRateLimitingRestClientCustomizer")
		RestClientCustomizer resilienceRateLimitingRestClientCustomizer(RateLimitingRequestInterceptor interceptor) {
			return (builder) -> builder.requestInterceptor(interceptor);
		}

		@Bean
		@ConditionalOnClass(RestTemplate.class)
		@ConditionalOnMissingBean(name = "resilienceRateLimitingRestTemplateCustomizer")
		RestTemplateCustomizer resilienceRateLimitingRestTemplateCustomizer(RateLimitingRequestInterceptor interceptor) {
			return (restTemplate) -> restTemplate.getInterceptors().add(interceptor);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ WebClient.class, WebClientCustomizer.class })
	static class WebClientConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitingExchangeFilter resilienceRateLimitingExchangeFilter(HttpClientRoutes routes,
				@Qualifier(ContinuationScheduler.BEAN_NAME) ScheduledExecutorService scheduler,
				ObjectProvider<Clock> clock) {
			return new RateLimitingExchangeFilter(routes, scheduler, clock.getIfUnique(Clock::systemUTC));
		}

		@Bean
		@ConditionalOnMissingBean(name = "resilienceRateLimitingWebClientCustomizer")
		WebClientCustomizer resilienceRateLimitingWebClientCustomizer(RateLimitingExchangeFilter filter) {
			return (builder) -> builder.filter(filter);
		}

	}

}
