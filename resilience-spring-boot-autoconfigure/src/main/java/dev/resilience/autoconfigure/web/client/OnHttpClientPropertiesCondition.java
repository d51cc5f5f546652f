package dev.resilience.autoconfigure.web.client;

import java.util.List;
import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.resilience.autoconfigure.ratelimit.RateLimiterProperties;

/**
 * Matches when some rate limiter sets {@code http-client.hosts} or {@code http-client.key}. Only
 * those two are bound here: the limiters' other properties are checked where they are bound, with
 * their own messages.
 */
class OnHttpClientPropertiesCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, Limiter> limiters = Binder.get(context.getEnvironment())
			.bind("resilience.rate-limiters", Bindable.mapOf(String.class, Limiter.class))
			.orElse(Map.of());
		List<String> named = limiters.entrySet()
			.stream()
			.filter((entry) -> !entry.getValue().getHttpClient().getHosts().isEmpty()
					|| entry.getValue().getHttpClient().getKey() != null)
			.map(Map.Entry::getKey)
			.toList();
		return named.isEmpty() ? ConditionOutcome.noMatch("no rate limiter has http-client.hosts or http-client.key")
				: ConditionOutcome.match("rate limiters with http-client properties: " + named);
	}

	/** The part of a limiter's properties this condition reads. */
	public static class Limiter {

		private final RateLimiterProperties.HttpClient httpClient = new RateLimiterProperties.HttpClient();

		public RateLimiterProperties.HttpClient getHttpClient() {
			return this.httpClient;
		}

	}

}
