package dev.resilience.autoconfigure.retry;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
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

	private final @Nullable Method fallback;

	RetryableMethod(Retry retry, @Nullable MethodExpression retryIf, @Nullable MethodExpression retryIfResult,
			@Nullable Method fallback) {
		this.retry = retry;
		this.retryIf = retryIf;
		this.retryIfResult = retryIfResult;
		this.fallback = fallback;
	}

	/**
	 * Runs one call of the method under its retry, and its fallback when the call ends in a
	 * failure the fallback takes.
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
			Method fallback = this.fallback;
			if (fallback == null || !fallback.getParameterTypes()[fallback.getParameterCount() - 1].isInstance(ex)) {
				throw ex;
			}
			return fallback(fallback, target, arguments, ex);
		}
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
