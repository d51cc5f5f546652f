package dev.resilience.autoconfigure.poll;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationPropertiesSource;

import dev.resilience.autoconfigure.support.BackoffProperties;
import dev.resilience.autoconfigure.support.PropertyErrors;
import dev.resilience.poll.PollSettings;

/**
 * Configuration of named poll settings, {@code resilience.polls.<name>}, used by
 * {@code @PollUntil(name = "<name>")}. The backoff settings ({@code delay}, {@code backoff},
 * {@code multiplier}, {@code max-delay}) are the {@link BackoffProperties} retry policies have too.
 */
@ConfigurationPropertiesSource
public class PollProperties extends BackoffProperties {

	/**
	 * Attempts in all; -1 for unlimited, which needs a timeout.
	 */
	private int maxAttempts = PollSettings.DEFAULT_MAX_ATTEMPTS;

	/**
	 * Overall deadline, counted from the start of the first attempt; an attempt that would begin
	 * past it is not made. None by default.
	 */
	private @Nullable Duration timeout;

	/**
	 * Whether an exception of the polled method counts as an unmet attempt instead of ending the
	 * poll.
	 */
	private boolean ignoreExceptions;

	/**
	 * Creates the properties with the defaults of {@link PollSettings#defaults()}.
	 */
	public PollProperties() {
		super(PollSettings.defaults().backoffPolicy());
	}

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public @Nullable Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(@Nullable Duration timeout) {
		this.timeout = timeout;
	}

	public boolean isIgnoreExceptions() {
		return this.ignoreExceptions;
	}

	public void setIgnoreExceptions(boolean ignoreExceptions) {
		this.ignoreExceptions = ignoreExceptions;
	}

	/**
	 * Checks the values and maps them to the settings of a poll.
	 * @param name the settings' name, for messages
	 * @return the settings
	 * @throws IllegalArgumentException naming the property that is wrong
	 */
	public PollSettings toSettings(String name) {
		try {
			return PollSettings.builder()
				.maxAttempts(this.maxAttempts)
				.backoffPolicy(toBackoffPolicy())
				.timeout(this.timeout)
				.ignoreExceptions(this.ignoreExceptions)
				.build();
		}
		catch (IllegalArgumentException ex) {
			throw PropertyErrors.named("resilience.polls." + name, ex, PollProperties.class);
		}
	}

}
