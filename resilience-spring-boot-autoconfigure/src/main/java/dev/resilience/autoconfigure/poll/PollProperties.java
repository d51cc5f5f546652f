package dev.resilience.autoconfigure.poll;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.PropertyNames;
import dev.resilience.poll.PollSettings;
import dev.resilience.retry.Backoff;

/**
 * Configuration of named poll settings, {@code resilience.polls.<name>}, used by
 * {@code @PollUntil(name = "<name>")}.
 */
public class PollProperties {

	/**
	 * Attempts in all; -1 for unlimited, which needs a timeout.
	 */
	private int maxAttempts = PollSettings.DEFAULT_MAX_ATTEMPTS;

	/**
	 * Wait after the first attempt, from which the later waits grow.
	 */
	private Duration delay = PollSettings.DEFAULT_DELAY;

	/**
	 * How the wait between attempts grows: fixed, linear or exponential.
	 */
	private Backoff backoff = PollSettings.DEFAULT_BACKOFF;

	/**
	 * Growth factor of the exponential backoff.
	 */
	private double multiplier = PollSettings.DEFAULT_MULTIPLIER;

	/**
	 * Cap on one wait between attempts.
	 */
	private Duration maxDelay = PollSettings.DEFAULT_MAX_DELAY;

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
	 * Returns {@code max-attempts}.
	 * @return the value
	 */
	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * Sets {@code max-attempts}.
	 * @param maxAttempts the value
	 */
	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	/**
	 * Returns {@code delay}.
	 * @return the value
	 */
	public Duration getDelay() {
		return this.delay;
	}

	/**
	 * Sets {@code delay}.
	 * @param delay the value
	 */
	public void setDelay(Duration delay) {
		this.delay = delay;
	}

	/**
	 * Returns {@code backoff}.
	 * @return the value
	 */
	public Backoff getBackoff() {
		return this.backoff;
	}

	/**
	 * Sets {@code backoff}.
	 * @param backoff the value
	 */
	public void setBackoff(Backoff backoff) {
		this.backoff = backoff;
	}

	/**
	 * Returns {@code multiplier}.
	 * @return the value
	 */
	public double getMultiplier() {
		return this.multiplier;
	}

	/**
	 * Sets {@code multiplier}.
	 * @param multiplier the value
	 */
	public void setMultiplier(double multiplier) {
		this.multiplier = multiplier;
	}

	/**
	 * Returns {@code max-delay}.
	 * @return the value
	 */
	public Duration getMaxDelay() {
		return this.maxDelay;
	}

	/**
	 * Sets {@code max-delay}.
	 * @param maxDelay the value
	 */
	public void setMaxDelay(Duration maxDelay) {
		this.maxDelay = maxDelay;
	}

	/**
	 * Returns {@code timeout}.
	 * @return the value
	 */
	public @Nullable Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Sets {@code timeout}.
	 * @param timeout the value
	 */
	public void setTimeout(@Nullable Duration timeout) {
		this.timeout = timeout;
	}

	/**
	 * Returns {@code ignore-exceptions}.
	 * @return the value
	 */
	public boolean isIgnoreExceptions() {
		return this.ignoreExceptions;
	}

	/**
	 * Sets {@code ignore-exceptions}.
	 * @param ignoreExceptions the value
	 */
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
				.delay(this.delay)
				.backoff(this.backoff)
				.multiplier(this.multiplier)
				.maxDelay(this.maxDelay)
				.timeout(this.timeout)
				.ignoreExceptions(this.ignoreExceptions)
				.build();
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("resilience.polls." + name + ": " + PropertyNames.inMessage(ex.getMessage()),
					ex);
		}
	}

}
