package dev.resilience.autoconfigure.ratelimit;

import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.AnnotatedMethodAdvisor;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimited;

/**
 * Runs {@link RateLimited @RateLimited} methods only when their
 * limiters admit the call, and returns the concurrency permits when the method returns or
 * throws. It matches by the target class, so an annotation on the class reaches every public
 * method, inherited ones included, and one on an interface or a superclass method is found too.
 * Spring's own auto-proxying applies it; AspectJ is not needed. The methods are read by
 * {@link RateLimitedMethods}, looked up on the first call, so that making proxies never creates
 * the limiters (or their listeners and meter registry) early.
 */
public class RateLimitedAdvisor extends AnnotatedMethodAdvisor<RateLimitedMethod> {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the advisor.
	 * @param methods supplies the annotated methods when first needed; asked once
	 * @param order the advisor's order, {@code resilience.aspect-order.rate-limit}
	 */
	public RateLimitedAdvisor(Supplier<? extends RateLimitedMethods> methods, int order) {
		super(RateLimited.class, methods, RateLimitedAdvisor::invoke, order);
	}

	private static @Nullable Object invoke(MethodInvocation invocation, RateLimitedMethod method) throws Throwable {
		try (Permit permit = method.acquire(invocation.getArguments())) {
			return invocation.proceed();
		}
	}

}
