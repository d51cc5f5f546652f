package dev.resilience.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.resilience.autoconfigure.support.ResilienceAspect;

/**
 * The properties every resilience capability shares: {@code resilience.aspect-order}. Each
 * capability binds its own keys under {@code resilience.}; {@code ResiliencePropertiesCheck}
 * makes a key none of them binds an error rather than silently ignored.
 */
@ConfigurationProperties(prefix = "resilience")
public class ResilienceProperties {

	/**
	 * Order of the resilience aspects on one method: lower runs outside.
	 */
	private final AspectOrder aspectOrder = new AspectOrder();

	public AspectOrder getAspectOrder() {
		return this.aspectOrder;
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

		public int getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(int rateLimit) {
			this.rateLimit = rateLimit;
		}

		public int getRetry() {
			return this.retry;
		}

		public void setRetry(int retry) {
			this.retry = retry;
		}

		public int getPoll() {
			return this.poll;
		}

		public void setPoll(int poll) {
			this.poll = poll;
		}

		public int getConnection() {
			return this.connection;
		}

		public void setConnection(int connection) {
			this.connection = connection;
		}

	}

}
