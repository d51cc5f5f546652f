package dev.resilience.autoconfigure.retry;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;

import dev.resilience.autoconfigure.support.MethodExpression;
import dev.resilience.autoconfigure.support.Stages;
import dev.resilience.internal.ScheduledAttempts;
import dev.resilience.retry.Retry;
import dev.resilience.retry.RetryExecution;
import dev.resilience.retry.RetryableCall;

/**
 * The {@code @Retryable} of one method, read and checked: its retry, its conditions and its
 * fallback. Immutable.
 */
final class RetryableMethod {

	private final Retry retry;

	/** The policy the annotation names, empty for the built-in defaults. */
	private final String policyName;

	private final @Nullable MethodExpression retryIf;

	private final @Nullable MethodExpression retryIfResult;

	/** The overloads of the fallback method, which differ in their exception parameter only. */
	private final List<Method> fallbacks;

	RetryableMethod(Retry retry, String policyName, @Nullable MethodExpression retryIf,
			@Nullable MethodExpression retryIfResult, List<Method> fallbacks) {
		this.retry = retry;
		this.policyName = policyName;
		this.retryIf = retryIf;
		this.retryIfResult = retryIfResult;
		this.fallbacks = List.copyOf(fallbacks);
	}

	/**
	 * Returns the method's retry: the named policy with the annotation's attributes laid over it.
	 * @return the retry
	 */
	public Retry getRetry() {
		return this.retry;
	}

	/** The policy the annotation names, empty for the built-in defaults. */
	String policyName() {
		return this.policyName;
	}

	/** The {@code retryIf} expression as written, or {@code null} for none. */
	@Nullable String retryIfText() {
		return (this.retryIf != null) ? this.retryIf.getExpressionString() : null;
	}

	/** The {@code retryIfResult} expression as written, or {@code null} for none. */
	@Nullable String retryIfResultText() {
		return (this.retryIfResult != null) ? this.retryIfResult.getExpressionString() : null;
	}

	/** The fallback method's name, or {@code null} for none. */
	@Nullable String fallbackName() {
		return this.fallbacks.isEmpty() ? null : this.fallbacks.get(0).getName();
	}

	/**
	 * Runs one call of the method under its retry, and its fallback when the call ends in a
	 * failure the fallback takes; of overloads of the fallback, the one whose exception parameter
	 * is the most specific type of the failure.
	 * @param target the bean, whose fallback method is called
	 * @param arguments the call's arguments, over which the conditions are evaluated
	 * @param attempt one attempt of the call
	 * @return the result, or the fallback's
	 * @throws Throwable the call's failure when there is no fallback for it
	 */
	public @Nullable Object call(@Nullable Object target, @Nullable Object[] arguments,
			RetryableCall<@Nullable Object> attempt) throws Throwable {
		try {
			return this.retry.call(attempt, retryIf(arguments), retryIfResult(arguments));
		}
		catch (Exception ex) {
			return fallback(target, arguments, ex);
		}
	}

	/**
	 * Runs one call of a method that returns a {@link CompletionStage}, asynchronously: its retry
	 * as {@link Retry#callAsync(Supplier, java.util.function.Predicate, java.util.function.Predicate,
	 * ScheduledExecutorService)} runs it, with the method's conditions, and when retrying ends in a
	 * failure a fallback overload takes, the fallback, chosen and called as by
	 * {@link #call(Object, Object[], RetryableCall)}, its return value made a stage by
	 * {@code toStage}. Returns at once; the fallback runs on the thread that ends the retry (the
	 * scheduler's, or this one when the first attempt ends it), and its stage's outcome completes
	 * the returned future on the scheduler. Cancelling the returned future cancels the retry and
	 * a running fallback's stage.
	 * @param target the bean, whose fallback method is called
	 * @param arguments the call's arguments, over which the conditions are evaluated
	 * @param attempt invokes the method once, returning its stage
	 * @param toStage makes the fallback's return value a stage, such as the identity for a
	 * {@code CompletionStage} method or an adapter of a {@code Mono}
	 * @param scheduler waits the delays and makes the attempts after the first
	 * @return the call's future: the method's value or the fallback's, or the failure, with the
	 * exceptions of {@code call}
	 */
	public CompletableFuture<@Nullable Object> callAsync(@Nullable Object target, @Nullable Object[] arguments,
			Supplier<? extends CompletionStage<?>> attempt, Function<@Nullable Object, ? extends CompletionStage<?>> toStage,
			ScheduledExecutorService scheduler) {
		CompletableFuture<@Nullable Object> retried = this.retry.callAsync(attempt, retryIf(arguments),
				retryIfResult(arguments), scheduler);
		if (this.fallbacks.isEmpty()) {
			return retried;
		}
		CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
		Stages.cancelWith(result, retried);
		retried.whenComplete((value, failure) -> {
			if (failure == null) {
				result.complete(value);
				return;
			}
			Throwable cause = ScheduledAttempts.unwrap(failure);
			if (result.isDone() || !(cause instanceof Exception exception) || fallbackFor(exception) == null) {
				result.completeExceptionally(cause);
				return;
			}
			CompletableFuture<?> stage;
			try {
				stage = Objects.requireNonNull(toStage.apply(fallback(target, arguments, exception)),
						"The fallback's stage is null")
					.toCompletableFuture();
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
				return;
			}
			Stages.cancelWith(result, stage);
			ScheduledAttempts.whenComplete(stage, scheduler, (fallbackValue, fallbackFailure) -> {
				if (fallbackFailure == null) {
					result.complete(fallbackValue);
				}
				else {
					result.completeExceptionally(ScheduledAttempts.unwrap(fallbackFailure));
				}
			});
		});
		return result;
	}

	/**
	 * Begins one call of the method under its retry, with its conditions evaluated over the
	 * call's arguments, for a driver of its own such as a reactive operator.
	 * @param arguments the call's arguments
	 * @return the call's execution
	 */
	public RetryExecution begin(@Nullable Object[] arguments) {
		return this.retry.begin(retryIf(arguments), retryIfResult(arguments));
	}

	/**
	 * Calls the fallback for a failure that ended retrying: of the overloads, the one whose
	 * exception parameter is the most specific type of the failure.
	 * @param target the bean, whose fallback method is called
	 * @param arguments the call's arguments, passed before the failure
	 * @param failure how retrying ended
	 * @return what the fallback returned
	 * @throws Throwable the failure itself when no overload takes it (an {@link Error} never has
	 * one), or what the fallback throws
	 */
	public @Nullable Object fallback(@Nullable Object target, @Nullable Object[] arguments, Throwable failure)
			throws Throwable {
		Method fallback = (failure instanceof Exception exception) ? fallbackFor(exception) : null;
		if (fallback == null) {
			throw failure;
		}
		return invoke(fallback, target, arguments, failure);
	}

	/**
	 * Returns whether the method has a fallback.
	 * @return whether {@code fallbackMethod} names one
	 */
	public boolean hasFallback() {
		return !this.fallbacks.isEmpty();
	}

	private Predicate<Throwable> retryIf(@Nullable Object[] arguments) {
		MethodExpression retryIf = this.retryIf;
		return (retryIf != null) ? (failure) -> retryIf.evaluateCondition(arguments, variable("exception", failure))
				: (failure) -> true;
	}

	private Predicate<@Nullable Object> retryIfResult(@Nullable Object[] arguments) {
		MethodExpression retryIfResult = this.retryIfResult;
		return (retryIfResult != null)
				? (result) -> retryIfResult.evaluateCondition(arguments, variable("result", result))
				: (result) -> false;
	}

	/**
	 * The overload taking the failure whose exception type is the most specific. Exception types
	 * are classes, so those the failure is an instance of lie on one line of inheritance and the
	 * most specific is unique.
	 */
	private @Nullable Method fallbackFor(Exception failure) {
		Method best = null;
		for (Method candidate : this.fallbacks) {
			Class<?> type = failureType(candidate);
			if (type.isInstance(failure) && (best == null || failureType(best).isAssignableFrom(type))) {
				best = candidate;
			}
		}
		return best;
	}

	/**
	 * Where a fallback's exception parameter is: last, or before the {@code Continuation} of a
	 * suspend fallback.
	 * @param fallback a fallback method, or a method that might be one
	 * @return the index, negative when the method has too few parameters to be one
	 */
	static int failureIndex(Method fallback) {
		return fallback.getParameterCount() - (KotlinDetector.isSuspendingFunction(fallback) ? 2 : 1);
	}

	/** The type of failure a fallback takes. */
	static Class<?> failureType(Method fallback) {
		return fallback.getParameterTypes()[failureIndex(fallback)];
	}

	private static Map<String, @Nullable Object> variable(String name, @Nullable Object value) {
		return Collections.singletonMap(name, value);
	}

	private static @Nullable Object invoke(Method fallback, @Nullable Object target, @Nullable Object[] arguments,
			Throwable failure) throws Throwable {
		if (KotlinDetector.isSuspendingFunction(fallback)) {
			return SuspendingFallback.invoke(fallback, target, arguments, failure);
		}
		Object[] fallbackArguments = Arrays.copyOf((arguments != null) ? arguments : new Object[0],
				fallback.getParameterCount());
		fallbackArguments[fallbackArguments.length - 1] = failure;
		try {
			return fallback.invoke(target, fallbackArguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	/**
	 * Calls the suspend fallback of a suspend function, loaded only for one (it needs
	 * kotlinx-coroutines-reactor): its arguments are the call's without the caller's
	 * {@code Continuation}, then the failure; it gives the {@code Mono} of the fallback, which the
	 * caller's {@code toStage} adapts as it does the method's own.
	 */
	private static final class SuspendingFallback {

		static Object invoke(Method fallback, @Nullable Object target, @Nullable Object[] arguments, Throwable failure) {
			// The Continuation is not passed: CoroutinesUtils adds its own.
			int failureIndex = failureIndex(fallback);
			Object[] fallbackArguments = Arrays.copyOf((arguments != null) ? arguments : new Object[0], failureIndex + 1);
			fallbackArguments[failureIndex] = failure;
			return CoroutinesUtils.invokeSuspendingFunction(fallback, target, fallbackArguments);
		}

	}

}
