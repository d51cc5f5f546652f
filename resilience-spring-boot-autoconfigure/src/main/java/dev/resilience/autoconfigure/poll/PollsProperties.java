package dev.resilience.autoconfigure.poll;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The properties of {@code resilience.polls}.
 */
@ConfigurationProperties(prefix = "resilience")
public class PollsProperties {

	/**
	 * Poll settings by name, as used by @PollUntil(name) and PollSettingsRegistry.get(name).
	 * Each takes max-attempts, delay, backoff, multiplier, max-delay, timeout and
	 * ignore-exceptions.
	 */
	private final Map<String, PollProperties> polls = new LinkedHashMap<>();

	public Map<String, PollProperties> getPolls() {
		return this.polls;
	}

}
