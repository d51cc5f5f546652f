package dev.resilience.autoconfigure.actuate;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The recent events that {@code GET /actuator/resilience/events} shows: {@code resilience.events}.
 */
@ConfigurationProperties(prefix = "resilience")
public class ResilienceEventsProperties {

	/**
	 * The recent events that GET /actuator/resilience/events shows.
	 */
	private final Events events = new Events();

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

}
