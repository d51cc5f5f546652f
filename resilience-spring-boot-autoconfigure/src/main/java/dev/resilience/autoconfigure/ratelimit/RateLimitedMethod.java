package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.MethodExpression;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * The {@code @RateLimited} annotations of one method, read and checked: for each limiter, in the
 * order asked, the key expression, the cost and the longest wait. Immutable.
 */
final class RateLimitedMethod {

	private final RateLimiterRegistry registry;

	private final List<Limit> limits;

	/**
	 * Whether an admitted call holds a concurrency permit until it ends: a limiter has
	 * {@code max-concurrent}. Read once: a limiter's settings may change at run time, but not
	 * whether it has {@code max-concurrent}.
	 */
	private final boolean holdsPermits;

	RateLimitedMethod(RateLimiterRegistry registry, List<Limit> limits) {
		this.registry = registry;
		this.limits = List.copyOf(limits);
		this.holdsPermits = limits.stream().anyMatch((limit) -> limit.limiter().getSettings().maxConcurrent() > 0);
	}

	/**
	 * Whether an admitted call holds a concurrency permit to give back when it ends; without, its
	 * permit holds nothing and closing it does nothing.
	 * @return whether a limiter of the method has {@code max-concurrent}
	 */
	boolean holdsPermits() {
		return this.holdsPermits;
	}

	/**
	 * Admits one call through every limiter of the method, all or nothing.
	 * @param arguments the call's arguments, over which the keys are evaluated
	 * @return the permit, to close when the call ends
	 * @throws dev.resilience.ratelimit.RateLimitExceededException if a limiter rejects the call
	 * @throws IllegalArgumentException if a key evaluates to {@code null} or an empty string
	 */
	public Permit acquire(@Nullable Object[] arguments) {
		if (this.limits.size() == 1) {
			Limit limit = this.limits.get(0);
			return limit.limiter().acquire(limit.key(arguments), limit.cost(), limit.maxWait());
		}
		return this.registry.acquireAll(requests(arguments));
	}

	/**
	 * Admits one call through every limiter of the method, all or nothing, without holding the
	 * calling thread: see {@link RateLimiter#acquireAsync(String, int, Duration, ScheduledExecutorService)}
	 * and {@link RateLimiterRegistry#acquireAllAsync(List, ScheduledExecutorService)}. Nothing is
	 * thrown: every outcome, a bad key included, completes the future.
	 * @param arguments the call's arguments, over which the keys are evaluated
	 * @param scheduler runs the waits and the continuations
	 * @return the permit, to close when the call ends; completed exceptionally with
	 * {@link dev.resilience.ratelimit.RateLimitExceededException} if a limiter rejects the call, or
	 * with {@link IllegalArgumentException} if a key evaluates to {@code null} or an empty string
	 */
	public CompletableFuture<Permit> acquireAsync(@Nullable Object[] arguments, ScheduledExecutorService scheduler) {
		try {
			if (this.limits.size() == 1) {
				Limit limit = this.limits.get(0);
				return limit.limiter().acquireAsync(limit.key(arguments), limit.cost(), limit.maxWait(), scheduler);
			}
			return this.registry.acquireAllAsync(requests(arguments), scheduler);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private List<RateLimitRequest> requests(@Nullable Object[] arguments) {
		List<RateLimitRequest> requests = new ArrayList<>(this.limits.size());
		for (Limit limit : this.limits) {
			requests.add(new RateLimitRequest(limit.limiter(), limit.key(arguments), limit.cost(), limit.maxWait()));
		}
		return requests;
	}

	/**
	 * One {@code @RateLimited} of a method.
	 *
	 * @param limiter the limiter
	 * @param key the key expression, or {@code null} for the limiter's shared bucket
	 * @param cost the call's cost
	 * @param maxWait the longest wait
	 * @param where the annotation and method, for messages
	 */
	record Limit(RateLimiter limiter, @Nullable MethodExpression key, int cost, Duration maxWait, String where) {

		/** The key's text as written, empty for the shared bucket. */
		String keyText() {
			return (this.key != null) ? this.key.getExpressionString() : "";
		}

		/** The key of one call: a null or empty one would silently share one bucket. */
		String key(@Nullable Object[] arguments) {
			MethodExpression expression = this.key;
			if (expression == null) {
				return "";
			}
			Object value = expression.evaluate(arguments);
			String key = (value != null) ? value.toString() : null;
			if (key == null) {
				throw invalidKey(expression, "null", "a null key");
			}
			if (key.isEmpty()) {
				throw invalidKey(expression, "an empty string", "an empty key");
			}
			return key;
		}

		private IllegalArgumentException invalidKey(MethodExpression expression, String value, String key) {
			return new IllegalArgumentException("The key expression '" + expression.getExpressionString() + "' of "
					+ this.where + " evaluated to " + value + "; " + key + " would silently share one bucket");
		}

	}

}
