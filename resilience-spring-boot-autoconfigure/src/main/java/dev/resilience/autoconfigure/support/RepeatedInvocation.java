package dev.resilience.autoconfigure.support;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Runs the rest of a call once more, for advice that calls its method several times (a poll's
 * or a retry's attempts). A {@link MethodInvocation} walks the advice chain only once: a second
 * {@code proceed()} would skip the advice inside (such as the rate limiter), so every attempt
 * proceeds on a fresh copy of the invocation instead, as Spring Retry does.
 */
public final class RepeatedInvocation {

	private RepeatedInvocation() {
	}

	/**
	 * Runs the advice inside and the method once more, with the call's arguments.
	 * @param invocation the call, as the advice received it
	 * @return the method's result
	 * @throws Throwable what the advice inside or the method throws
	 */
	public static @Nullable Object proceed(MethodInvocation invocation) throws Throwable {
		return (invocation instanceof ProxyMethodInvocation proxyInvocation) ? proxyInvocation.invocableClone().proceed()
				: invocation.proceed();
	}

}
