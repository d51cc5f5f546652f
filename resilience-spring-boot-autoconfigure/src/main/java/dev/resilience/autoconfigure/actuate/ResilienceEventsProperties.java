package dev.resilience.autoconfigure.actuate;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The recent events that {@code GET /actuator/resilience/events} shows: {@code resilience.events}.
 * Whether they show rate-limit keys is {@code resilience.include-keys}
 * ({@link dev.resilience.autoconfigure.ResilienceProperties}).
 */
@ConfigurationProperties(prefix = "resilience")
public class ResilienceEventsProperties {

	/**
	 * The recent events that GET /actuator/resilience/events shows.
	 */
	private final Events events = new Events();

	public Events getEvents() {
		return this.events;
	}

	/**
	 * The recent events that {@code GET /actuator/resilience/events} shows.
	 */
	public static class Events {

		/**
		 * How many of the most recent events are kept, at least 1: rejections, waits, pauses of
		 * keys, retries, exhausted retries and polls, checkout and operation timeouts, store
		 * failures.
		 */
		private int bufferSize = 100;

		public int getBufferSize() {
			return this.bufferSize;
		}

		public void setBufferSize(int bufferSize) {
			// Checked when bound, so that a wrong size stops startup even when no events are kept.
			if (bufferSize < 1) {
				throw new IllegalArgumentException(
						"resilience.events.buffer-size must be at least 1 but was " + bufferSize);
			}
			this.bufferSize = bufferSize;
		}
	}

}
