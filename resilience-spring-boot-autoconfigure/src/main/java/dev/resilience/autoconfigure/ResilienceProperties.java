package dev.resilience.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.resilience.autoconfigure.poll.PollProperties;
import dev.resilience.autoconfigure.pool.ConnectionPoolProperties;
import dev.resilience.autoconfigure.ratelimit.RateLimiterProperties;
import dev.resilience.autoconfigure.retry.RetryProperties;
import dev.resilience.autoconfigure.support.ResilienceAspect;

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
	 * Retry policies by name, as used by @Retryable(name). Each takes max-retries, delay,
	 * backoff, multiplier, max-delay, jitter, max-duration, retry-on, no-retry-on and budget.
	 */
	private final Map<String, RetryProperties> retries = new LinkedHashMap<>();

	/**
	 * Poll settings by name, as used by @PollUntil(name) and PollSettingsRegistry.get(name).
	 * Each takes max-attempts, delay, backoff, multiplier, max-delay, timeout and
	 * ignore-exceptions.
	 */
	private final Map<String, PollProperties> polls = new LinkedHashMap<>();

	/**
	 * Connection pools by name, as used by @WithConnection(pool) and injected as the
	 * ConnectionPool bean of the same name. Each takes max-size, min-idle, timeout,
	 * validate-on-checkout, max-idle-time and factory (the name of a ConnectionFactory bean; none
	 * makes a permit pool that only bounds concurrent calls).
	 */
	private final Map<String, ConnectionPoolProperties> pools = new LinkedHashMap<>();

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
	 * Whether a RateLimitExceededException records the stack trace of the rejected call. Off by
	 * default: a rejection is an expected answer under load, and recording its stack costs more
	 * than deciding it. Turn it on to see in logs where rejected calls come from.
	 */
	private boolean rateLimitStackTraces;

	/**
	 * The recent events that GET /actuator/resilience/events shows.
	 */
	private final Events events = new Events();

	/**
	 * Returns {@code rate-limiters}.
	 * @return the value
	 */
	public Map<String, RateLimiterProperties> getRateLimiters() {
		return this.rateLimiters;
	}

	/**
	 * Returns {@code retries}.
	 * @return the value
	 */
	public Map<String, RetryProperties> getRetries() {
		return this.retries;
	}

	/**
	 * Returns {@code polls}.
	 * @return the value
	 */
	public Map<String, PollProperties> getPolls() {
		return this.polls;
	}

	/**
	 * Returns {@code pools}.
	 * @return the value
	 */
	public Map<String, ConnectionPoolProperties> getPools() {
		return this.pools;
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
	 * Returns {@code rate-limit-stack-traces}.
	 * @return the value
	 */
	public boolean isRateLimitStackTraces() {
		return this.rateLimitStackTraces;
	}

	/**
	 * Sets {@code rate-limit-stack-traces}.
	 * @param rateLimitStackTraces the value
	 */
	public void setRateLimitStackTraces(boolean rateLimitStackTraces) {
		this.rateLimitStackTraces = rateLimitStackTraces;
	}

	/**
	 * Returns {@code events}.
	 * @return the value
	 */
	public Events getEvents() {
		return this.events;
	}

	/**
	 * The recent events that {@code GET /actuator/resilience/events} shows.
	 */
	public static class Events {

		/**
		 * How many of the most recent events are kept, at least 1: rejections, waits, retries,
		 * exhausted retries and polls, checkout and operation timeouts, store failures.
		 */
		private int bufferSize = 100;

		/**
		 * Whether rate-limit events show the key of the call. Off by default: keys may identify
		 * users or carry secrets.
		 */
		private boolean includeKeys;

		/**
		 * Returns {@code buffer-size}.
		 * @return the value
		 */
		public int getBufferSize() {
			return this.bufferSize;
		}

		/**
		 * Sets {@code buffer-size}.
		 * @param bufferSize the value
		 */
		public void setBufferSize(int bufferSize) {
			this.bufferSize = bufferSize;
		}

		/**
		 * Returns {@code include-keys}.
		 * @return the value
		 */
		public boolean isIncludeKeys() {
			return this.includeKeys;
		}

		/**
		 * Sets {@code include-keys}.
		 * @param includeKeys the value
		 */
		public void setIncludeKeys(boolean includeKeys) {
			this.includeKeys = includeKeys;
		}

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
		 * on-store-failure until Redis answers. Zero connects in the background.
		 */
		private Duration connectTimeout = Duration.ofSeconds(2);

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

		/**
		 * Returns {@code connect-timeout}.
		 * @return the value
		 */
		public Duration getConnectTimeout() {
			return this.connectTimeout;
		}

		/**
		 * Sets {@code connect-timeout}.
		 * @param connectTimeout the value
		 */
		public void setConnectTimeout(Duration connectTimeout) {
			this.connectTimeout = connectTimeout;
		}

	}

	/**
	 * Order of each resilience aspect; a lower value runs outside a higher one.
	 */
	public static class AspectOrder {

		/**
		 * Order of the @RateLimited advice.
		 */
		private int rateLimit = ResilienceAspect.RATE_LIMIT.defaultOrder();

		/**
		 * Order of the @Retryable advice.
		 */
		private int retry = ResilienceAspect.RETRY.defaultOrder();

		/**
		 * Order of the @PollUntil advice.
		 */
		private int poll = ResilienceAspect.POLL.defaultOrder();

		/**
		 * Order of the @WithConnection advice.
		 */
		private int connection = ResilienceAspect.CONNECTION.defaultOrder();

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

		/**
		 * Returns {@code retry}.
		 * @return the value
		 */
		public int getRetry() {
			return this.retry;
		}

		/**
		 * Sets {@code retry}.
		 * @param retry the value
		 */
		public void setRetry(int retry) {
			this.retry = retry;
		}

		/**
		 * Returns {@code poll}.
		 * @return the value
		 */
		public int getPoll() {
			return this.poll;
		}

		/**
		 * Sets {@code poll}.
		 * @param poll the value
		 */
		public void setPoll(int poll) {
			this.poll = poll;
		}

		/**
		 * Returns {@code connection}.
		 * @return the value
		 */
		public int getConnection() {
			return this.connection;
		}

		/**
		 * Sets {@code connection}.
		 * @param connection the value
		 */
		public void setConnection(int connection) {
			this.connection = connection;
		}

	}

}
