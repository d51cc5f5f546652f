package dev.resilience.autoconfigure.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationPropertiesSource;

import dev.resilience.autoconfigure.support.BackoffProperties;
import dev.resilience.autoconfigure.support.PropertyErrors;
import dev.resilience.retry.Jitter;
import dev.resilience.retry.RetryBudgetSettings;
import dev.resilience.retry.RetryPolicy;

/**
 * Configuration of one retry policy, {@code resilience.retries.<name>}: the values
 * {@code @Retryable(name)} takes for the attributes it does not set. The backoff settings
 * ({@code delay}, {@code backoff}, {@code multiplier}, {@code max-delay}) are the
 * {@link BackoffProperties} polls have too.
 */
@ConfigurationPropertiesSource
public class RetryProperties extends BackoffProperties {

	/**
	 * Retries after the first attempt: 3 makes up to 4 attempts.
	 */
	private int maxRetries = RetryPolicy.DEFAULT_MAX_RETRIES;

	/**
	 * How delays are randomised: none, full, equal or decorrelated.
	 */
	private Jitter jitter = Jitter.FULL;

	/**
	 * Time all attempts and delays of a call may take; no retry starts whose delay would end
	 * past it. No limit when unset.
	 */
	private @Nullable Duration maxDuration;

	/**
	 * Exceptions retried, as class names, matched on the exception and its causes; every
	 * Exception when empty.
	 */
	private List<Class<? extends Throwable>> retryOn = new ArrayList<>();

	/**
	 * Exceptions never retried, as class names, matched on the exception and its causes.
	 */
	private List<Class<? extends Throwable>> noRetryOn = new ArrayList<>();

	/**
	 * Retry budget of the policy, over all its callers in this instance; off unless ratio is set.
	 */
	private final Budget budget = new Budget();

	/**
	 * Creates the properties with the defaults of {@link RetryPolicy#builder()}.
	 */
	public RetryProperties() {
		super(RetryPolicy.builder().build().backoff());
	}

	public int getMaxRetries() {
		return this.maxRetries;
	}

	public void setMaxRetries(int maxRetries) {
		this.maxRetries = maxRetries;
	}

	public Jitter getJitter() {
		return this.jitter;
	}

	public void setJitter(Jitter jitter) {
		this.jitter = jitter;
	}

	public @Nullable Duration getMaxDuration() {
		return this.maxDuration;
	}

	public void setMaxDuration(@Nullable Duration maxDuration) {
		this.maxDuration = maxDuration;
	}

	public List<Class<? extends Throwable>> getRetryOn() {
		return this.retryOn;
	}

	public void setRetryOn(List<Class<? extends Throwable>> retryOn) {
		this.retryOn = retryOn;
	}

	public List<Class<? extends Throwable>> getNoRetryOn() {
		return this.noRetryOn;
	}

	public void setNoRetryOn(List<Class<? extends Throwable>> noRetryOn) {
		this.noRetryOn = noRetryOn;
	}

	public Budget getBudget() {
		return this.budget;
	}

	/**
	 * Checks the settings and makes the policy.
	 * @param name the policy's name, for messages
	 * @return the policy
	 * @throws IllegalArgumentException naming the property that is wrong
	 */
	public RetryPolicy toSettings(String name) {
		String prefix = "resilience.retries." + name + ".";
		checkTypes(prefix + "retry-on", this.retryOn);
		checkTypes(prefix + "no-retry-on", this.noRetryOn);
		RetryBudgetSettings budget = null;
		if (this.budget.ratio != null) {
			try {
				budget = new RetryBudgetSettings(this.budget.ratio, this.budget.window, this.budget.minRetriesPerSecond);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(prefix + "budget." + ex.getMessage(), ex);
			}
		}
		else if (this.budget.tuned) {
			throw new IllegalArgumentException(prefix + "budget.window and " + prefix
					+ "budget.min-retries-per-second only tune a budget, which is off until " + prefix
					+ "budget.ratio is set");
		}
		try {
			return RetryPolicy.builder()
				.maxRetries(this.maxRetries)
				.backoffPolicy(toBackoffPolicy())
				.jitter(this.jitter)
				.maxDuration(this.maxDuration)
				.retryOn(this.retryOn.isEmpty() ? List.of(Exception.class) : this.retryOn)
				.noRetryOn(this.noRetryOn)
				.budget(budget)
				.build();
		}
		catch (IllegalArgumentException ex) {
			throw PropertyErrors.named("resilience.retries." + name, ex, RetryProperties.class);
		}
	}

	/** Generics are erased when binding: a class name that is no exception would only fail at a call. */
	private static void checkTypes(String property, List<Class<? extends Throwable>> types) {
		for (Class<?> type : types) {
			if (!Throwable.class.isAssignableFrom(type)) {
				throw new IllegalArgumentException(property + " names " + type.getName() + ", which is not an exception");
			}
		}
	}

	/**
	 * The retry budget: retries over the last window may not exceed ratio times the first
	 * attempts made over it, plus min-retries-per-second for every second of the window.
	 */
	public static class Budget {

		/**
		 * Retries allowed per first attempt, such as 0.2; the budget is off when unset.
		 */
		private @Nullable Double ratio;

		/**
		 * How far back attempts count.
		 */
		private Duration window = Duration.ofSeconds(RetryBudgetSettings.DEFAULT_WINDOW_SECONDS);

		/**
		 * Retries per second allowed regardless of traffic, so that a quiet service can still retry.
		 */
		private int minRetriesPerSecond = RetryBudgetSettings.DEFAULT_MIN_RETRIES_PER_SECOND;

		/** Whether window or min-retries-per-second was set: meaningless without a ratio. */
		private boolean tuned;

		public @Nullable Double getRatio() {
			return this.ratio;
		}

		public void setRatio(@Nullable Double ratio) {
			this.ratio = ratio;
		}

		public Duration getWindow() {
			return this.window;
		}

		public void setWindow(Duration window) {
			this.window = window;
			this.tuned = true;
		}

		public int getMinRetriesPerSecond() {
			return this.minRetriesPerSecond;
		}

		public void setMinRetriesPerSecond(int minRetriesPerSecond) {
			this.minRetriesPerSecond = minRetriesPerSecond;
			this.tuned = true;
		}

	}

}
