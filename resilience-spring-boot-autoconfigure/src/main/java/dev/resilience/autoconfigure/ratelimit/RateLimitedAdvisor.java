package dev.resilience.autoconfigure.ratelimit;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcutAdvisor;

import dev.resilience.ratelimit.Permit;

/**
 * Runs {@link dev.resilience.ratelimit.RateLimited @RateLimited} methods only when their
 * limiters admit the call, and returns the concurrency permits when the method returns or
 * throws. It matches by the target class, so an annotation on the class reaches every public
 * method, inherited ones included, and one on an interface or a superclass method is found too.
 * Spring's own auto-proxying applies it; AspectJ is not needed. The work is done by
 * {@link RateLimitedMethods}, looked up on the first call, so that making proxies never
 * creates the limiters (or their listeners and meter registry) early.
 */
public class RateLimitedAdvisor extends StaticMethodMatcherPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient Supplier<RateLimitedMethods> methods;

	/**
	 * Creates the advisor.
	 * @param methods supplies the annotated methods when first needed
	 * @param order the advisor's order, {@code resilience.aspect-order.rate-limit}
	 */
	public RateLimitedAdvisor(Supplier<RateLimitedMethods> methods, int order) {
		this.methods = methods;
		setOrder(order);
		setAdvice((MethodInterceptor) this::invoke);
	}

	/**
	 * Matches by annotations alone, reading no configuration, so that proxies can be made
	 * before the limiters exist; the annotations are checked at startup and on the first call.
	 */
	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		return RateLimitedMethods.isAnnotated(method, targetClass);
	}

	private @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Method method = invocation.getMethod();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		Permit permit = this.methods.get().acquire(method, targetClass, invocation.getArguments());
		if (permit == null) {
			return invocation.proceed();
		}
		try (permit) {
			return invocation.proceed();
		}
	}

}
