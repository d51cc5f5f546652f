package dev.resilience.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

import dev.resilience.autoconfigure.ratelimit.RateLimiterProperties;

/**
 * Configuration properties of the resilience starter. Unknown keys under {@code resilience.}
 * are an error rather than silently ignored.
 */
@ConfigurationProperties(prefix = "resilience", ignoreUnknownFields = false)
public class ResilienceProperties {

	/**
	 * Rate limiters by name, as used by @RateLimited(name) and RateLimiterRegistry.get(name).
	 * Each takes store, token-bucket, windows, window-algorithm, max-concurrent, lease-timeout,
	 * max-wait, max-keys (the most keys the in-memory store holds, 1000000 by default) and
	 * on-store-failure (what a redis limiter decides when Redis does not answer in time).
	 */
	private final Map<String, RateLimiterProperties> rateLimiters = new LinkedHashMap<>();

	/**
	 * Order of the resilience aspects on one method: lower runs outside.
	 */
	private final AspectOrder aspectOrder = new AspectOrder();

	/**
	 * The Redis store of rate limiters with store: redis; the connection itself is Spring Boot's
	 * spring.data.redis.*.
	 */
	private final Redis redis = new Redis();

	/**
	 * Returns {@code rate-limiters}.
	 * @return the value
	 */
	public Map<String, RateLimiterProperties> getRateLimiters() {
		return this.rateLimiters;
	}

	/**
	 * Returns {@code aspect-order}.
	 * @return the value
	 */
	public AspectOrder getAspectOrder() {
		return this.aspectOrder;
	}

	/**
	 * Returns {@code redis}.
	 * @return the value
	 */
	public Redis getRedis() {
		return this.redis;
	}

	/**
	 * The Redis store of rate limiters.
	 */
	public static class Redis {

		/**
		 * What every Redis key of the rate limiters starts with; must not contain braces.
		 */
		private String keyPrefix = "resilience:";

		/**
		 * Longest a rate-limit decision waits for Redis; after it, or when Redis is down, the
		 * limiter's on-store-failure decides.
		 */
		private Duration decisionTimeout = Duration.ofMillis(200);

		/**
		 * Returns {@code key-prefix}.
		 * @return the value
		 */
		public String getKeyPrefix() {
			return this.keyPrefix;
		}

		/**
		 * Sets {@code key-prefix}.
		 * @param keyPrefix the value
		 */
		public void setKeyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

		/**
		 * Returns {@code decision-timeout}.
		 * @return the value
		 */
		public Duration getDecisionTimeout() {
			return this.decisionTimeout;
		}

		/**
		 * Sets {@code decision-timeout}.
		 * @param decisionTimeout the value
		 */
		public void setDecisionTimeout(Duration decisionTimeout) {
			this.decisionTimeout = decisionTimeout;
		}

	}

	/**
	 * Order of each resilience aspect; a lower value runs outside a higher one.
	 */
	public static class AspectOrder {

		/** Default order of the @RateLimited advice: inside retry and polling, outside transactions. */
		public static final int DEFAULT_RATE_LIMIT = Ordered.LOWEST_PRECEDENCE - 2;

		/**
		 * Order of the @RateLimited advice.
		 */
		private int rateLimit = DEFAULT_RATE_LIMIT;

		/**
		 * Returns {@code rate-limit}.
		 * @return the value
		 */
		public int getRateLimit() {
			return this.rateLimit;
		}

		/**
		 * Sets {@code rate-limit}.
		 * @param rateLimit the value
		 */
		public void setRateLimit(int rateLimit) {
			this.rateLimit = rateLimit;
		}

	}

}
