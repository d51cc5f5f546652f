package dev.resilience.retry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

import org.jspecify.annotations.Nullable;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;

/**
 * The named retry policies of an application, and the one retry budget of each policy that has
 * one, shared by every {@link Retry} made for that name. Makes the retries with one clock,
 * sleeper, random source, Retry-After reader and set of listeners. Thread safe.
 */
public final class RetryRegistry {

	private final Map<String, RetryPolicy> policies;

	private final Map<String, RetryBudget> budgets;

	private final Ticker ticker;

	private final Sleeper sleeper;

	private final DoubleSupplier random;

	private final RetryAfter retryAfter;

	private final List<RetryListener> listeners;

	private RetryRegistry(Builder builder) {
		this.policies = Collections.unmodifiableMap(new LinkedHashMap<>(builder.policies));
		this.ticker = builder.ticker;
		this.sleeper = builder.sleeper;
		this.random = builder.random;
		this.retryAfter = builder.retryAfter;
		this.listeners = List.copyOf(builder.listeners);
		Map<String, RetryBudget> budgets = new LinkedHashMap<>();
		this.policies.forEach((name, policy) -> {
			RetryBudgetSettings settings = policy.budget();
			if (settings != null) {
				budgets.put(name, new RetryBudget(settings, this.ticker));
			}
		});
		this.budgets = Collections.unmodifiableMap(budgets);
	}

	/**
	 * Returns a builder with the system clock and sleeper, thread-local random numbers and
	 * Retry-After read from rate-limit rejections.
	 * @return the builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Returns the names of the policies, in the order they were added.
	 * @return the names
	 */
	public Set<String> getNames() {
		return this.policies.keySet();
	}

	/**
	 * Returns a named policy.
	 * @param name the name
	 * @return the policy
	 * @throws IllegalArgumentException listing the configured names when there is no such policy
	 */
	public RetryPolicy getPolicy(String name) {
		RetryPolicy policy = this.policies.get(name);
		if (policy == null) {
			throw new IllegalArgumentException(
					"No retry policy named '" + name + "'; configured are " + this.policies.keySet());
		}
		return policy;
	}

	/**
	 * Returns the budget shared by the retries of a named policy.
	 * @param name the policy's name
	 * @return the budget, or {@code null} when the name has none
	 */
	public @Nullable RetryBudget getBudget(String name) {
		return this.budgets.get(name);
	}

	/**
	 * Makes a retry for a named policy, possibly with settings of its own; it shares the named
	 * policy's budget.
	 * @param name the policy's name, or another name (such as {@code ClassName.method}) for a
	 * retry of no named policy
	 * @param policy the settings to retry with
	 * @return the retry
	 */
	public Retry retry(String name, RetryPolicy policy) {
		Retry.Builder builder = Retry.builder(name, policy)
			.ticker(this.ticker)
			.sleeper(this.sleeper)
			.random(this.random)
			.retryAfter(this.retryAfter)
			.budget(this.budgets.get(name));
		this.listeners.forEach(builder::listener);
		return builder.build();
	}

	/** Collects the policies and what the retries share. */
	public static final class Builder {

		private final Map<String, RetryPolicy> policies = new LinkedHashMap<>();

		private Ticker ticker = Ticker.system();

		private Sleeper sleeper = Sleeper.system();

		private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();

		private RetryAfter retryAfter = RetryAfter.rateLimits();

		private final List<RetryListener> listeners = new ArrayList<>();

		private Builder() {
		}

		/**
		 * Adds a named policy.
		 * @param name the name
		 * @param policy the policy
		 * @return this builder
		 */
		public Builder policy(String name, RetryPolicy policy) {
			this.policies.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(policy, "policy"));
			return this;
		}

		/**
		 * Sets the clock.
		 * @param ticker the clock
		 * @return this builder
		 */
		public Builder ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker");
			return this;
		}

		/**
		 * Sets how delays are waited.
		 * @param sleeper the sleeper
		 * @return this builder
		 */
		public Builder sleeper(Sleeper sleeper) {
			this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
			return this;
		}

		/**
		 * Sets the random numbers of the jitter.
		 * @param random gives numbers in {@code [0, 1)}
		 * @return this builder
		 */
		public Builder random(DoubleSupplier random) {
			this.random = Objects.requireNonNull(random, "random");
			return this;
		}

		/**
		 * Sets how a failure's Retry-After is read.
		 * @param retryAfter the reader
		 * @return this builder
		 */
		public Builder retryAfter(RetryAfter retryAfter) {
			this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
			return this;
		}

		/**
		 * Adds a listener told of every retry's attempts.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(RetryListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener"));
			return this;
		}

		/**
		 * Builds the registry.
		 * @return the registry
		 */
		public RetryRegistry build() {
			return new RetryRegistry(this);
		}

	}

}
