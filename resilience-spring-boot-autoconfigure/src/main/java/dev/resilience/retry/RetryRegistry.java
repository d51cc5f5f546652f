package dev.resilience.retry;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;

/**
 * The named retry policies of an application, and the one retry budget of each policy that has
 * one, shared by every {@link Retry} made for that name. Makes the retries with one clock and
 * whatever else they share (sleeper, random source, Retry-After reader, listeners). Thread safe.
 */
public final class RetryRegistry {

	/** Replaced whole, copied on write, when a policy changes at run time. */
	private volatile Map<String, RetryPolicy> policies;

	/** Replaced with {@link #policies}. */
	private volatile Map<String, RetryBudget> budgets;

	private final Ticker ticker;

	private final Consumer<Retry.Builder> retries;

	private RetryRegistry(Builder builder) {
		this.policies = Collections.unmodifiableMap(new LinkedHashMap<>(builder.policies));
		this.ticker = builder.ticker;
		this.retries = builder.retries;
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
	 * Returns a builder with the system clock, and retries made with {@link Retry#builder}'s
	 * defaults.
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
	 * Replaces a named policy at run time. Retries made afterwards use it; those made before (the
	 * starter makes one per annotated method, and makes them again after the change) keep theirs.
	 * The budget stays, with what it counted, when its settings stay; otherwise the policy gets a
	 * new budget of the new settings, or none.
	 * @param name the policy's name
	 * @param policy the new policy
	 * @throws IllegalArgumentException listing the configured names when there is no such policy
	 */
	public synchronized void updatePolicy(String name, RetryPolicy policy) {
		RetryPolicy previous = getPolicy(name);
		Map<String, RetryPolicy> policies = new LinkedHashMap<>(this.policies);
		policies.put(name, Objects.requireNonNull(policy, "policy"));
		Map<String, RetryBudget> budgets = new LinkedHashMap<>(this.budgets);
		RetryBudgetSettings settings = policy.budget();
		if (settings == null) {
			budgets.remove(name);
		}
		else if (!settings.equals(previous.budget()) || !budgets.containsKey(name)) {
			budgets.put(name, new RetryBudget(settings, this.ticker));
		}
		this.budgets = Collections.unmodifiableMap(budgets);
		this.policies = Collections.unmodifiableMap(policies);
	}

	/**
	 * Puts back a named policy and the budget it had, with what the budget counted, as they were
	 * before an {@link #updatePolicy} that was then refused.
	 * @param name the policy's name
	 * @param policy the policy as it was
	 * @param budget its budget as it was, or {@code null} for none
	 * @throws IllegalArgumentException listing the configured names when there is no such policy
	 */
	public synchronized void restorePolicy(String name, RetryPolicy policy, @Nullable RetryBudget budget) {
		getPolicy(name);
		Map<String, RetryPolicy> policies = new LinkedHashMap<>(this.policies);
		policies.put(name, Objects.requireNonNull(policy, "policy"));
		Map<String, RetryBudget> budgets = new LinkedHashMap<>(this.budgets);
		if (budget == null) {
			budgets.remove(name);
		}
		else {
			budgets.put(name, budget);
		}
		this.budgets = Collections.unmodifiableMap(budgets);
		this.policies = Collections.unmodifiableMap(policies);
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
		Retry.Builder builder = Retry.builder(name, policy).ticker(this.ticker);
		this.retries.accept(builder);
		return builder.budget(this.budgets.get(name)).build();
	}

	/** Collects the policies and what the retries share. */
	public static final class Builder {

		private final Map<String, RetryPolicy> policies = new LinkedHashMap<>();

		private Ticker ticker = Ticker.system();

		private Consumer<Retry.Builder> retries = (retry) -> {
		};

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
		 * Sets the clock of the budgets and the retries.
		 * @param ticker the clock
		 * @return this builder
		 */
		public Builder ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker");
			return this;
		}

		/**
		 * Sets what every retry made shares besides the clock, such as its sleeper, random
		 * numbers, Retry-After reader and listeners.
		 * @param retries applied to the builder of every retry
		 * @return this builder
		 */
		public Builder retries(Consumer<Retry.Builder> retries) {
			this.retries = Objects.requireNonNull(retries, "retries");
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
