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

	/**
	 * Returns {@code aspect-order}.
	 * @return the value
	 */
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
