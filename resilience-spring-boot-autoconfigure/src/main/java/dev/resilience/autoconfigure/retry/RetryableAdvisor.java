package dev.resilience.autoconfigure.retry;

import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.AnnotatedMethodAdvisor;
import dev.resilience.autoconfigure.support.RepeatedInvocation;
import dev.resilience.retry.Retryable;

/**
 * Retries {@link Retryable @Retryable} methods. Each attempt runs the rest of the advice chain
 * anew, so advice inside this one (such as {@code @RateLimited}) sees every attempt. The methods
 * are read by {@link RetryableMethods}, looked up on the first call.
 */
public class RetryableAdvisor extends AnnotatedMethodAdvisor<RetryableMethod> {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the advisor.
	 * @param methods supplies the annotated methods when first needed; asked once
	 * @param order the advisor's order, {@code resilience.aspect-order.retry}
	 */
	public RetryableAdvisor(Supplier<? extends RetryableMethods> methods, int order) {
		super(Retryable.class, methods, RetryableAdvisor::invoke, order);
	}

	private static @Nullable Object invoke(MethodInvocation invocation, RetryableMethod method) throws Throwable {
		return method.call(invocation.getThis(), invocation.getArguments(), () -> RepeatedInvocation.proceed(invocation));
	}

}
