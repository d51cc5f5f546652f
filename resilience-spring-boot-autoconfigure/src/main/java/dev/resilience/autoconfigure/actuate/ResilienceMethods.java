package dev.resilience.autoconfigure.actuate;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.PollDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.RetryBudgetDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.RetryPolicyDescriptor;
import dev.resilience.autoconfigure.poll.PolledMethods;
import dev.resilience.autoconfigure.pool.WithConnectionMethod;
import dev.resilience.autoconfigure.pool.WithConnectionMethods;
import dev.resilience.autoconfigure.ratelimit.RateLimitedMethods;
import dev.resilience.autoconfigure.retry.RetryableMethods;
import dev.resilience.internal.SettingsText;
import dev.resilience.retry.RetryRegistry;

/**
 * The view of the annotated methods, {@code GET /actuator/resilience/methods}: each method with the
 * retry, poll, rate limiters and pool it uses, in the order they run (outermost first), and the
 * settings in force once its annotation's attributes are laid over the named ones. Settings are
 * written as the endpoint writes them everywhere; key expressions are shown as written, never a
 * key a call evaluated.
 */
public final class ResilienceMethods {

	private final @Nullable RetryableMethods retries;

	private final @Nullable PolledMethods polls;

	private final @Nullable RateLimitedMethods rateLimits;

	private final @Nullable WithConnectionMethods connections;

	private final @Nullable RetryRegistry retryRegistry;

	/**
	 * Creates the view.
	 * @param retries the {@code @Retryable} methods, or {@code null} for none
	 * @param polls the {@code @PollUntil} methods, or {@code null} for none
	 * @param rateLimits the {@code @RateLimited} methods, or {@code null} for none
	 * @param connections the {@code @WithConnection} methods, or {@code null} for none
	 * @param retryRegistry the retry policies, whose budgets the retries share, or {@code null} for
	 * none
	 */
	public ResilienceMethods(@Nullable RetryableMethods retries, @Nullable PolledMethods polls,
			@Nullable RateLimitedMethods rateLimits, @Nullable WithConnectionMethods connections,
			@Nullable RetryRegistry retryRegistry) {
		this.retries = retries;
		this.polls = polls;
		this.rateLimits = rateLimits;
		this.connections = connections;
		this.retryRegistry = retryRegistry;
	}

	/**
	 * Describes every annotated method read so far: those of every singleton bean once the context
	 * has started, and those of beans made later once called.
	 * @return the methods
	 */
	public MethodsDescriptor describe() {
		Map<String, MethodRetryDescriptor> retries = (this.retries != null) ? retriesOf(this.retries) : Map.of();
		Map<String, MethodPollDescriptor> polls = (this.polls != null) ? pollsOf(this.polls) : Map.of();
		Map<String, List<MethodLimitDescriptor>> limits = (this.rateLimits != null) ? limitsOf(this.rateLimits)
				: Map.of();
		Map<String, MethodConnectionDescriptor> connections = (this.connections != null)
				? connectionsOf(this.connections) : Map.of();
		SortedMap<String, MethodDescriptor> methods = new TreeMap<>();
		for (Map<String, ?> each : List.of(retries, polls, limits, connections)) {
			each.keySet()
				.forEach((method) -> methods.computeIfAbsent(method, (name) -> new MethodDescriptor(retries.get(name),
						polls.get(name), limits.getOrDefault(name, List.of()), connections.get(name))));
		}
		return new MethodsDescriptor(methods);
	}

	private Map<String, MethodRetryDescriptor> retriesOf(RetryableMethods methods) {
		Map<String, MethodRetryDescriptor> described = new TreeMap<>();
		methods.retries().forEach((method, retry) -> {
			// A budget belongs to the retry's name, shared by every method of that name.
			RetryBudgetDescriptor budget = (this.retryRegistry != null)
					? RetryBudgetDescriptor.of(this.retryRegistry.getBudget(retry.name())) : null;
			described.put(method, new MethodRetryDescriptor(retry.name(), retry.policy(),
					RetryPolicyDescriptor.of(retry.settings(), budget), retry.retryIf(), retry.retryIfResult(),
					retry.fallbackMethod()));
		});
		return described;
	}

	private static Map<String, MethodPollDescriptor> pollsOf(PolledMethods methods) {
		Map<String, MethodPollDescriptor> described = new TreeMap<>();
		methods.polls()
			.forEach((method, poll) -> described.put(method, new MethodPollDescriptor(poll.name(), poll.configured(),
					PollDescriptor.of(poll.settings()), poll.until())));
		return described;
	}

	private static Map<String, List<MethodLimitDescriptor>> limitsOf(RateLimitedMethods methods) {
		Map<String, List<MethodLimitDescriptor>> described = new TreeMap<>();
		methods.limits()
			.forEach((method, limits) -> described.put(method, limits.stream()
				.map((limit) -> new MethodLimitDescriptor(limit.limiter(), limit.key(), limit.cost(),
						SettingsText.of(limit.maxWait())))
				.toList()));
		return described;
	}

	private static Map<String, MethodConnectionDescriptor> connectionsOf(WithConnectionMethods methods) {
		Map<String, MethodConnectionDescriptor> described = new TreeMap<>();
		methods.connections().forEach((method, connection) -> described.put(method, of(connection)));
		return described;
	}

	private static MethodConnectionDescriptor of(WithConnectionMethod connection) {
		return new MethodConnectionDescriptor(connection.pool().getName(), SettingsText.of(connection.timeout()));
	}

	/**
	 * The annotated methods.
	 *
	 * @param methods each method, such as {@code com.example.Client.fetch(String, long)} (the class
	 * of the bean and the parameters' simple names), in alphabetical order
	 */
	public record MethodsDescriptor(Map<String, MethodDescriptor> methods) {
	}

	/**
	 * What one method runs with, outermost first (SPEC §6's default order).
	 *
	 * @param retry its {@code @Retryable}, or {@code null} for none
	 * @param poll its {@code @PollUntil}, or {@code null} for none
	 * @param rateLimits its {@code @RateLimited}s, in the order they are asked; empty for none
	 * @param connection its {@code @WithConnection}, or {@code null} for none
	 */
	public record MethodDescriptor(@Nullable MethodRetryDescriptor retry, @Nullable MethodPollDescriptor poll,
			List<MethodLimitDescriptor> rateLimits, @Nullable MethodConnectionDescriptor connection) {
	}

	/**
	 * A method's retry.
	 *
	 * @param name its name in meters and events: the policy's, else {@code ClassName.method}
	 * @param policy the policy under {@code resilience.retries} the annotation names, or {@code null}
	 * for the built-in defaults
	 * @param settings the policy with the attributes the annotation sets laid over it, and the
	 * budget the retry shares
	 * @param retryIf the {@code retryIf} expression, or {@code null} for none
	 * @param retryIfResult the {@code retryIfResult} expression, or {@code null} for none
	 * @param fallbackMethod the fallback method's name, or {@code null} for none
	 */
	public record MethodRetryDescriptor(String name, @Nullable String policy, RetryPolicyDescriptor settings,
			@Nullable String retryIf, @Nullable String retryIfResult, @Nullable String fallbackMethod) {
	}

	/**
	 * A method's poll.
	 *
	 * @param name its name in meters and events: the named settings', else {@code ClassName.method}
	 * @param configured the settings under {@code resilience.polls} the annotation names, or
	 * {@code null} for the built-in defaults
	 * @param settings those settings with the attributes the annotation sets laid over them
	 * @param until the {@code until} expression, or {@code null} for "the result is present"
	 */
	public record MethodPollDescriptor(String name, @Nullable String configured, PollDescriptor settings,
			@Nullable String until) {
	}

	/**
	 * One rate limiter a method asks.
	 *
	 * @param limiter the limiter's name; its settings are listed by {@code GET /actuator/resilience}
	 * @param key the key expression as written, or {@code null} for the limiter's shared bucket
	 * @param cost what one call consumes
	 * @param maxWait the longest wait: the annotation's {@code maxWait}, else the limiter's
	 * {@code max-wait}
	 */
	public record MethodLimitDescriptor(String limiter, @Nullable String key, int cost, String maxWait) {
	}

	/**
	 * A method's pool.
	 *
	 * @param pool the pool's name; its settings are listed by {@code GET /actuator/resilience}
	 * @param timeout the deadline of one call: the annotation's {@code timeout}, else the pool's
	 */
	public record MethodConnectionDescriptor(String pool, String timeout) {
	}

}
