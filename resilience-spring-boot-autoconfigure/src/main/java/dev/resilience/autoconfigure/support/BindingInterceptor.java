package dev.resilience.autoconfigure.support;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * A capability's advice: runs one call of an annotated method with the method's binding.
 *
 * @param <B> the binding made by the capability's {@link MethodBinder}
 */
@FunctionalInterface
public interface BindingInterceptor<B> {

	/**
	 * Runs the call, usually around {@link MethodInvocation#proceed()}.
	 * @param invocation the call
	 * @param binding the method's binding
	 * @return the call's result
	 * @throws Throwable what the call or the capability throws
	 */
	@Nullable Object invoke(MethodInvocation invocation, B binding) throws Throwable;

}
