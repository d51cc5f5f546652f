package dev.resilience.autoconfigure.ratelimit;

import java.lang.reflect.Method;

import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.Ordered;

import dev.resilience.ratelimit.Permit;

/**
 * Runs {@link dev.resilience.ratelimit.RateLimited @RateLimited} methods only when their
 * limiters admit the call, and returns the concurrency permits when the method returns or
 * throws. The work is done by {@link RateLimitedMethods}.
 */
@Aspect
public class RateLimitedAspect implements Ordered {

	private final RateLimitedMethods methods;

	private final int order;

	/**
	 * Creates the aspect.
	 * @param methods the annotated methods
	 * @param order the aspect's order, {@code resilience.aspect-order.rate-limit}
	 */
	public RateLimitedAspect(RateLimitedMethods methods, int order) {
		this.methods = methods;
		this.order = order;
	}

	/**
	 * Admits the call, then proceeds.
	 * @param call the intercepted call
	 * @return what the method returns
	 * @throws Throwable what the method throws, or a
	 * {@link dev.resilience.ratelimit.RateLimitExceededException} when a limiter rejects the call
	 */
	@Around("@within(dev.resilience.ratelimit.RateLimited) || @within(dev.resilience.ratelimit.RateLimited.List)"
			+ " || @annotation(dev.resilience.ratelimit.RateLimited) || @annotation(dev.resilience.ratelimit.RateLimited.List)")
	public @Nullable Object rateLimit(ProceedingJoinPoint call) throws Throwable {
		Method method = ((MethodSignature) call.getSignature()).getMethod();
		Object target = call.getTarget();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		Permit permit = this.methods.acquire(method, targetClass, call.getArgs());
		if (permit == null) {
			return call.proceed();
		}
		try (permit) {
			return call.proceed();
		}
	}

	@Override
	public int getOrder() {
		return this.order;
	}

}
