package dev.resilience.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

import dev.resilience.autoconfigure.support.ResilienceAspect;

/**
 * The properties every resilience capability shares: {@code resilience.aspect-order} and
 * {@code resilience.include-keys} (with its former name, {@code resilience.events.include-keys}). Each
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
	 * Whether rate-limit keys may leave the process: named in a RateLimitExceededException's
	 * message (and so in logs and traces that record it) and shown in the events of
	 * /actuator/resilience/events. Off by default: keys are often API keys or user ids. Meter
	 * tags, observation key values and 429 responses never carry a key.
	 */
	private @Nullable Boolean includeKeys;

	/**
	 * The recent events of /actuator/resilience/events; here only the former name of
	 * include-keys, the others being bound with the endpoint's properties.
	 */
	private final Events events = new Events();

	public AspectOrder getAspectOrder() {
		return this.aspectOrder;
	}

	public @Nullable Boolean getIncludeKeys() {
		return this.includeKeys;
	}

	public void setIncludeKeys(@Nullable Boolean includeKeys) {
		this.includeKeys = includeKeys;
	}

	public Events getEvents() {
		return this.events;
	}

	/**
	 * Returns whether rate-limit keys may leave the process: {@code resilience.include-keys}, else
	 * its former name {@code resilience.events.include-keys}, else {@code false}.
	 * @return whether keys are included
	 * @throws IllegalStateException naming both properties if both are set to different values
	 */
	public boolean keysIncluded() {
		Boolean former = this.events.includeKeys;
		if (this.includeKeys != null && former != null && !this.includeKeys.equals(former)) {
			throw new IllegalStateException("resilience.include-keys is " + this.includeKeys
					+ " but resilience.events.include-keys, its deprecated former name, is " + former
					+ ": remove resilience.events.include-keys");
		}
		return Boolean.TRUE.equals((this.includeKeys != null) ? this.includeKeys : former);
	}

	/**
	 * The former home of {@code include-keys}: {@code resilience.events.include-keys}, still
	 * accepted. The recent events' own properties are bound with the endpoint's.
	 */
	public static class Events {

		/**
		 * Whether rate-limit keys may leave the process; replaced by resilience.include-keys.
		 */
		private @Nullable Boolean includeKeys;

		/**
		 * Whether rate-limit keys may leave the process.
		 * @return the value, or {@code null} when not set
		 * @deprecated since 0.1.0 in favour of {@code resilience.include-keys}, which covers
		 * exception messages as well as events
		 */
		@Deprecated(since = "0.1.0")
		@DeprecatedConfigurationProperty(replacement = "resilience.include-keys", since = "0.1.0",
				reason = "Renamed, as it now covers exception messages as well as events")
		public @Nullable Boolean getIncludeKeys() {
			return this.includeKeys;
		}

		/**
		 * Sets whether rate-limit keys may leave the process.
		 * @param includeKeys the value
		 * @deprecated since 0.1.0 in favour of {@code resilience.include-keys}
		 */
		@Deprecated(since = "0.1.0")
		public void setIncludeKeys(@Nullable Boolean includeKeys) {
			this.includeKeys = includeKeys;
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
