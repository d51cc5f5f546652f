package dev.resilience.autoconfigure.pool;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationPropertiesSource;

import dev.resilience.autoconfigure.support.PropertyErrors;
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

	/** Whether min-idle was set: it makes idle connections, which a pool of permits has none of. */
	private boolean minIdleSet;

	/** Whether validate-on-checkout was set: only a factory validates. */
	private boolean validateOnCheckoutSet;

	public int getMaxSize() {
		return this.maxSize;
	}

	public void setMaxSize(int maxSize) {
		this.maxSize = maxSize;
	}

	public int getMinIdle() {
		return this.minIdle;
	}

	public void setMinIdle(int minIdle) {
		this.minIdle = minIdle;
		this.minIdleSet = true;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public boolean isValidateOnCheckout() {
		return this.validateOnCheckout;
	}

	public void setValidateOnCheckout(boolean validateOnCheckout) {
		this.validateOnCheckout = validateOnCheckout;
		this.validateOnCheckoutSet = true;
	}

	public @Nullable Duration getMaxIdleTime() {
		return this.maxIdleTime;
	}

	public void setMaxIdleTime(@Nullable Duration maxIdleTime) {
		this.maxIdleTime = maxIdleTime;
	}

	public @Nullable String getFactory() {
		return this.factory;
	}

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
		ConnectionPoolSettings settings;
		try {
			settings = ConnectionPoolSettings.builder()
				.maxSize(this.maxSize)
				.minIdle(this.minIdle)
				.timeout(this.timeout)
				.validateOnCheckout(this.validateOnCheckout)
				.maxIdleTime(this.maxIdleTime)
				.build();
		}
		catch (IllegalArgumentException ex) {
			throw PropertyErrors.named("resilience.pools." + name, ex, ConnectionPoolProperties.class);
		}
		if (this.factory == null) {
			// A pool without a factory holds permits: plain objects, made at once, never stale.
			String without = (this.minIdleSet) ? "min-idle" : (this.validateOnCheckoutSet) ? "validate-on-checkout"
					: (this.maxIdleTime != null) ? "max-idle-time" : null;
			if (without != null) {
				throw new IllegalArgumentException(PropertyErrors.property("resilience.pools." + name + "." + without,
						"cannot take effect: the pool has no factory, so it holds permits, which are never made ahead, "
								+ "validated or closed: set factory or remove " + without));
			}
		}
		return settings;
	}

}
