package dev.resilience.autoconfigure.pool;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationPropertiesSource;

import dev.resilience.pool.ConnectionPoolSettings;

/**
 * Configuration of one pool, {@code resilience.pools.<name>}.
 */
@ConfigurationPropertiesSource
public class ConnectionPoolProperties {

	/**
	 * Most connections handed out at once.
	 */
	private int maxSize = 8;

	/**
	 * Idle connections kept ready; made at startup.
	 */
	private int minIdle;

	/**
	 * Deadline of one call, checkout and execution together, when @WithConnection gives none.
	 */
	private Duration timeout = Duration.ofSeconds(30);

	/**
	 * Whether a connection is validated through its factory before it is handed out.
	 */
	private boolean validateOnCheckout;

	/**
	 * How long a connection may stay idle before it is closed; idle connections are kept when not
	 * set.
	 */
	private @Nullable Duration maxIdleTime;

	/**
	 * Name of the ConnectionFactory bean that makes the connections; without one, the pool holds
	 * permits and only bounds concurrent calls.
	 */
	private @Nullable String factory;

	/**
	 * Returns {@code max-size}.
	 * @return the value
	 */
	public int getMaxSize() {
		return this.maxSize;
	}

	/**
	 * Sets {@code max-size}.
	 * @param maxSize the value
	 */
	public void setMaxSize(int maxSize) {
		this.maxSize = maxSize;
	}

	/**
	 * Returns {@code min-idle}.
	 * @return the value
	 */
	public int getMinIdle() {
		return this.minIdle;
	}

	/**
	 * Sets {@code min-idle}.
	 * @param minIdle the value
	 */
	public void setMinIdle(int minIdle) {
		this.minIdle = minIdle;
	}

	/**
	 * Returns {@code timeout}.
	 * @return the value
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Sets {@code timeout}.
	 * @param timeout the value
	 */
	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	/**
	 * Returns {@code validate-on-checkout}.
	 * @return the value
	 */
	public boolean isValidateOnCheckout() {
		return this.validateOnCheckout;
	}

	/**
	 * Sets {@code validate-on-checkout}.
	 * @param validateOnCheckout the value
	 */
	public void setValidateOnCheckout(boolean validateOnCheckout) {
		this.validateOnCheckout = validateOnCheckout;
	}

	/**
	 * Returns {@code max-idle-time}.
	 * @return the value
	 */
	public @Nullable Duration getMaxIdleTime() {
		return this.maxIdleTime;
	}

	/**
	 * Sets {@code max-idle-time}.
	 * @param maxIdleTime the value
	 */
	public void setMaxIdleTime(@Nullable Duration maxIdleTime) {
		this.maxIdleTime = maxIdleTime;
	}

	/**
	 * Returns {@code factory}.
	 * @return the value
	 */
	public @Nullable String getFactory() {
		return this.factory;
	}

	/**
	 * Sets {@code factory}.
	 * @param factory the value
	 */
	public void setFactory(@Nullable String factory) {
		this.factory = factory;
	}

	/**
	 * Checks the values and maps them to the pool's settings.
	 * @param name the pool's name, for messages
	 * @return the settings
	 * @throws IllegalArgumentException naming the property that is wrong
	 */
	public ConnectionPoolSettings toSettings(String name) {
		try {
			return ConnectionPoolSettings.builder()
				.maxSize(this.maxSize)
				.minIdle(this.minIdle)
				.timeout(this.timeout)
				.validateOnCheckout(this.validateOnCheckout)
				.maxIdleTime(this.maxIdleTime)
				.build();
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("resilience.pools." + name + "." + ex.getMessage(), ex);
		}
	}

}
