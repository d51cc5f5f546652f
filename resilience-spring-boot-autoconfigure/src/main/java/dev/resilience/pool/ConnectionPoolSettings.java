package dev.resilience.pool;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.DurationText;

/**
 * The settings of one pool, checked when they are made. Create them with {@link #builder()}.
 *
 * @param maxSize the most connections handed out at once
 * @param minIdle the idle connections kept ready
 * @param timeout the deadline of a call that names none
 * @param validateOnCheckout whether a connection is validated before it is handed out
 * @param maxIdleTime how long a connection may stay idle before it is closed, or {@code null} to
 * keep idle connections
 */
public record ConnectionPoolSettings(int maxSize, int minIdle, Duration timeout, boolean validateOnCheckout,
		@Nullable Duration maxIdleTime) {

	/**
	 * Checks the settings; prefer {@link #builder()}.
	 * @param maxSize see the record component
	 * @param minIdle see the record component
	 * @param timeout see the record component
	 * @param validateOnCheckout see the record component
	 * @param maxIdleTime see the record component
	 * @throws IllegalArgumentException naming the setting ({@code max-size}, ...) that is out of range
	 * @throws NullPointerException if {@code timeout} is {@code null}
	 */
	public ConnectionPoolSettings {
		if (maxSize <= 0) {
			throw new IllegalArgumentException("max-size must be positive but was " + maxSize);
		}
		if (minIdle < 0 || minIdle > maxSize) {
			throw new IllegalArgumentException(
					"min-idle must be between 0 and max-size (" + maxSize + ") but was " + minIdle);
		}
		requirePositive("timeout", Objects.requireNonNull(timeout, "timeout"));
		if (maxIdleTime != null) {
			requirePositive("max-idle-time", maxIdleTime);
		}
	}

	/**
	 * Returns a builder with the defaults: {@code max-size} 8, {@code min-idle} 0, {@code timeout}
	 * 30s, no validation on checkout, idle connections kept.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Builds {@link ConnectionPoolSettings}, which check the values when they are made.
	 */
	public static final class Builder {

		private int maxSize = 8;

		private int minIdle;

		private Duration timeout = Duration.ofSeconds(30);

		private boolean validateOnCheckout;

		private @Nullable Duration maxIdleTime;

		private Builder() {
		}

		/**
		 * Sets the most connections handed out at once.
		 * @param maxSize positive
		 * @return this builder
		 */
		public Builder maxSize(int maxSize) {
			this.maxSize = maxSize;
			return this;
		}

		/**
		 * Sets the idle connections kept ready.
		 * @param minIdle at least 0, at most {@code maxSize}
		 * @return this builder
		 */
		public Builder minIdle(int minIdle) {
			this.minIdle = minIdle;
			return this;
		}

		/**
		 * Sets the deadline of a call that names none.
		 * @param timeout positive
		 * @return this builder
		 */
		public Builder timeout(Duration timeout) {
			this.timeout = timeout;
			return this;
		}

		/**
		 * Sets whether a connection is validated before it is handed out.
		 * @param validateOnCheckout whether to validate
		 * @return this builder
		 */
		public Builder validateOnCheckout(boolean validateOnCheckout) {
			this.validateOnCheckout = validateOnCheckout;
			return this;
		}

		/**
		 * Sets how long a connection may stay idle before it is closed.
		 * @param maxIdleTime positive, or {@code null} to keep idle connections
		 * @return this builder
		 */
		public Builder maxIdleTime(@Nullable Duration maxIdleTime) {
			this.maxIdleTime = maxIdleTime;
			return this;
		}

		/**
		 * Builds the settings, which check the values.
		 * @return the settings
		 * @throws IllegalArgumentException naming the setting ({@code max-size}, ...) that is out of
		 * range
		 * @throws NullPointerException if the timeout is {@code null}
		 */
		public ConnectionPoolSettings build() {
			return new ConnectionPoolSettings(this.maxSize, this.minIdle, this.timeout, this.validateOnCheckout,
					this.maxIdleTime);
		}

	}

	/**
	 * Checks that a deadline is positive.
	 * @param setting the setting's name, for the message
	 * @param duration the value
	 * @throws IllegalArgumentException if it is zero or negative
	 */
	static void requirePositive(String setting, Duration duration) {
		if (Objects.requireNonNull(duration, setting).isZero() || duration.isNegative()) {
			throw new IllegalArgumentException(setting + " must be positive but was " + DurationText.of(duration));
		}
	}

}
