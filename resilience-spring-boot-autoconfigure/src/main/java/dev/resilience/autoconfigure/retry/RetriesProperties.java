package dev.resilience.autoconfigure.retry;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The properties of {@code resilience.retries}.
 */
@ConfigurationProperties(prefix = "resilience")
public class RetriesProperties {

	/**
	 * Retry policies by name, as used by @Retryable(name). Each takes max-retries, delay,
	 * backoff, multiplier, max-delay, jitter, max-duration, retry-on, no-retry-on and budget.
	 */
	private final Map<String, RetryProperties> retries = new LinkedHashMap<>();

	public Map<String, RetryProperties> getRetries() {
		return this.retries;
	}

}
