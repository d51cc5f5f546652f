package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.resilience.autoconfigure.support.PropertyErrors;
import dev.resilience.internal.DurationText;

/**
 * The rate limiters' properties: {@code resilience.rate-limiters}, {@code resilience.redis} and
 * {@code resilience.rate-limit-stack-traces}.
 */
@ConfigurationProperties(prefix = "resilience")
public class RateLimitingProperties {

	/**
	 * Rate limiters by name, as used by @RateLimited(name) and RateLimiterRegistry.get(name).
	 * Each takes store, token-bucket, windows, window-algorithm, max-concurrent (a number, or
	 * adaptive), adaptive-concurrency, lease-timeout, max-wait, max-keys (the most keys the in-memory store holds, 1000000 by default) and
	 * on-store-failure (what a redis limiter decides when Redis does not answer in time).
	 */
	private final Map<String, RateLimiterProperties> rateLimiters = new LinkedHashMap<>();

	/**
	 * The Redis store of rate limiters with store: redis; the connection itself is Spring Boot's
	 * spring.data.redis.*.
	 */
	private final Redis redis = new Redis();

	/**
	 * Whether a RateLimitExceededException records the stack trace of the rejected call. Off by
	 * default: a rejection is an expected answer under load, and recording its stack costs more
	 * than deciding it. Turn it on to see in logs where rejected calls come from.
	 */
	private boolean rateLimitStackTraces;

	public Map<String, RateLimiterProperties> getRateLimiters() {
		return this.rateLimiters;
	}

	public Redis getRedis() {
		return this.redis;
	}

	/**
	 * Refuses {@code resilience.redis} properties set while no rate limiter has {@code store: redis},
	 * as nothing would read them.
	 * @throws IllegalArgumentException naming the first such property
	 */
	public void checkRedisUsed() {
		boolean used = this.rateLimiters.values()
			.stream()
			.anyMatch((limiter) -> limiter.getStore() == RateLimiterProperties.Store.REDIS);
		if (!used && !this.redis.written.isEmpty()) {
			String property = this.redis.written.iterator().next();
			throw new IllegalArgumentException(PropertyErrors.property("resilience.redis." + property,
					"cannot take effect: only rate limiters with store: redis use Redis, and none has it: set "
							+ "store: redis on a limiter or remove resilience.redis." + property));
		}
	}

	public boolean isRateLimitStackTraces() {
		return this.rateLimitStackTraces;
	}

	public void setRateLimitStackTraces(boolean rateLimitStackTraces) {
		this.rateLimitStackTraces = rateLimitStackTraces;
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
		 * Longest the application's startup waits for the Redis connection, when some rate
		 * limiter has store: redis; after it, startup goes on and decisions follow
		 * on-store-failure until Redis answers. Zero connects in the background. Also the longest
		 * gap between two attempts to connect (from 100 ms, doubling), within 100 ms and 5 s (5 s
		 * when zero).
		 */
		private Duration connectTimeout = Duration.ofSeconds(2);

		/** The properties set, as they are spelt: only a limiter with store: redis reads them. */
		private final Set<String> written = new LinkedHashSet<>();

		public String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(String keyPrefix) {
			// Checked when bound (as the Redis store checks it), so that a wrong value stops startup
			// even while no limiter uses Redis.
			if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
				throw new IllegalArgumentException("resilience.redis.key-prefix must not contain '{' or '}' (Redis "
						+ "Cluster would take them for the hash tag) but was '" + keyPrefix + "'");
			}
			this.keyPrefix = keyPrefix;
			this.written.add("key-prefix");
		}

		public Duration getDecisionTimeout() {
			return this.decisionTimeout;
		}

		public void setDecisionTimeout(Duration decisionTimeout) {
			if (decisionTimeout.isNegative() || decisionTimeout.isZero()) {
				throw new IllegalArgumentException(
						"resilience.redis.decision-timeout must be positive but was "
								+ DurationText.of(decisionTimeout));
			}
			this.decisionTimeout = decisionTimeout;
			this.written.add("decision-timeout");
		}

		public Duration getConnectTimeout() {
			return this.connectTimeout;
		}

		public void setConnectTimeout(Duration connectTimeout) {
			if (connectTimeout.isNegative()) {
				throw new IllegalArgumentException(
						"resilience.redis.connect-timeout must not be negative but was "
								+ DurationText.of(connectTimeout));
			}
			this.connectTimeout = connectTimeout;
			this.written.add("connect-timeout");
		}

	}

}
