package dev.resilience.autoconfigure.support;

import org.springframework.core.Ordered;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.env.Environment;

/**
 * The four resilience aspects, each with its {@code resilience.aspect-order.*} key and default
 * order; a lower order runs outside a higher one.
 */
public enum ResilienceAspect {

	/** The @Retryable advice: outermost, so every retry asks the limiter again. */
	RETRY("retry", Ordered.LOWEST_PRECEDENCE - 4),

	/** The @PollUntil advice: inside retry, outside rate limiting. */
	POLL("poll", Ordered.LOWEST_PRECEDENCE - 3),

	/** The @RateLimited advice: inside retry and polling, outside transactions. */
	RATE_LIMIT("rate-limit", Ordered.LOWEST_PRECEDENCE - 2),

	/** The @WithConnection advice: innermost, so every attempt gets its own deadline. */
	CONNECTION("connection", Ordered.LOWEST_PRECEDENCE - 1);

	private final String property;

	private final int defaultOrder;

	ResilienceAspect(String key, int defaultOrder) {
		this.property = "resilience.aspect-order." + key;
		this.defaultOrder = defaultOrder;
	}

	/**
	 * Returns the order used when {@code resilience.aspect-order.*} does not set one.
	 * @return the default order
	 */
	public int defaultOrder() {
		return this.defaultOrder;
	}

	/**
	 * Returns the aspect's order as configured. Read from the environment rather than the bound
	 * properties: advisors are created while post-processors are still being registered, too
	 * early to bind them.
	 * @param environment the environment
	 * @return the configured order, or the default
	 * @throws IllegalArgumentException naming the property when its value is not a whole number
	 */
	public int order(Environment environment) {
		try {
			return environment.getProperty(this.property, Integer.class, this.defaultOrder);
		}
		catch (ConversionException ex) {
			// the properties are bound too late to name it for us
			throw new IllegalArgumentException(PropertyErrors.property(this.property, "cannot be '"
					+ environment.getProperty(this.property) + "': it must be a whole number (an int)"), ex);
		}
	}

}
