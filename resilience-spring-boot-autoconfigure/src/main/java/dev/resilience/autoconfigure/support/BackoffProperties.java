package dev.resilience.autoconfigure.support;

import java.time.Duration;

import dev.resilience.internal.SettingsText;
import dev.resilience.retry.Backoff;
import dev.resilience.retry.BackoffPolicy;

/**
 * The backoff settings of a retry policy ({@code resilience.retries.<name>}) and of poll
 * settings ({@code resilience.polls.<name>}), written once: {@code delay}, {@code backoff},
 * {@code multiplier} and {@code max-delay}, mapped to the one {@link BackoffPolicy} value both
 * use. A capability's properties extend it, so the names stay flat under each entry; only the
 * defaults differ, given by the subclass.
 */
public abstract class BackoffProperties {

	/**
	 * First delay between attempts, from which the later delays grow.
	 */
	private Duration delay;

	/**
	 * How the delay grows: fixed, linear or exponential.
	 */
	private Backoff backoff;

	/**
	 * Growth factor of exponential backoff.
	 */
	private double multiplier;

	/**
	 * Cap on one delay between attempts.
	 */
	private Duration maxDelay;

	/** Whether multiplier, which only exponential backoff reads, was set. */
	private boolean multiplierSet;

	/** Whether max-delay, which a fixed backoff never reaches, was set. */
	private boolean maxDelaySet;

	/**
	 * Creates the settings with a capability's defaults.
	 * @param defaults the values when none are set
	 */
	protected BackoffProperties(BackoffPolicy defaults) {
		this.delay = defaults.delay();
		this.backoff = defaults.backoff();
		this.multiplier = defaults.multiplier();
		this.maxDelay = defaults.maxDelay();
	}

	public Duration getDelay() {
		return this.delay;
	}

	public void setDelay(Duration delay) {
		this.delay = delay;
	}

	public Backoff getBackoff() {
		return this.backoff;
	}

	public void setBackoff(Backoff backoff) {
		this.backoff = backoff;
	}

	public double getMultiplier() {
		return this.multiplier;
	}

	public void setMultiplier(double multiplier) {
		this.multiplier = multiplier;
		this.multiplierSet = true;
	}

	public Duration getMaxDelay() {
		return this.maxDelay;
	}

	public void setMaxDelay(Duration maxDelay) {
		this.maxDelay = maxDelay;
		this.maxDelaySet = true;
	}

	/**
	 * Checks the four settings together and makes the backoff.
	 * @return the backoff
	 * @throws IllegalArgumentException naming the setting that is out of range, or that is set
	 * but cannot take effect with the backoff, as its property is spelt
	 */
	protected BackoffPolicy toBackoffPolicy() {
		BackoffPolicy policy = new BackoffPolicy(this.backoff, this.delay, this.multiplier, this.maxDelay);
		if (this.multiplierSet && this.backoff != Backoff.EXPONENTIAL) {
			throw new IllegalArgumentException("multiplier cannot take effect: only exponential backoff grows by it, "
					+ "and backoff is " + SettingsText.of(this.backoff) + ": set backoff: exponential or remove multiplier");
		}
		if (this.maxDelaySet && this.backoff == Backoff.FIXED) {
			throw new IllegalArgumentException("max-delay cannot take effect: backoff is fixed, so every delay is "
					+ "delay: set backoff: linear or exponential, or remove max-delay");
		}
		return policy;
	}

}
