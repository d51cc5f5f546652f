package dev.resilience.autoconfigure.retry;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.MethodExpression;
import dev.resilience.retry.Retry;
import dev.resilience.retry.RetryableCall;

/**
 * The {@code @Retryable} of one method, read and checked: its retry, its conditions and its
 * fallback. Immutable.
 */
public final class RetryableMethod {

	private final Retry retry;

	private final @Nullable MethodExpression retryIf;

	private final @Nullable MethodExpression retryIfResult;

	/** The overloads of the fallback method, which differ in their exception parameter only. */
	private final List<Method> fallbacks;

	RetryableMethod(Retry retry, @Nullable MethodExpression retryIf, @Nullable MethodExpression retryIfResult,
			List<Method> fallbacks) {
		this.retry = retry;
		this.retryIf = retryIf;
		this.retryIfResult = retryIfResult;
		this.fallbacks = List.copyOf(fallbacks);
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
		MethodExpression retryIf = this.retryIf;
		MethodExpression retryIfResult = this.retryIfResult;
		try {
			return this.retry.call(attempt,
					(retryIf != null) ? (failure) -> retryIf.evaluateCondition(arguments, variable("exception", failure))
							: (failure) -> true,
					(retryIfResult != null)
							? (result) -> retryIfResult.evaluateCondition(arguments, variable("result", result))
							: (result) -> false);
		}
		catch (Exception ex) {
			Method fallback = fallbackFor(ex);
			if (fallback == null) {
				throw ex;
			}
			return fallback(fallback, target, arguments, ex);
		}
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

	private static Class<?> failureType(Method fallback) {
		return fallback.getParameterTypes()[fallback.getParameterCount() - 1];
	}

	private static Map<String, @Nullable Object> variable(String name, @Nullable Object value) {
		return Collections.singletonMap(name, value);
	}

	private static @Nullable Object fallback(Method fallback, @Nullable Object target, @Nullable Object[] arguments,
			Exception failure) throws Throwable {
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

}
