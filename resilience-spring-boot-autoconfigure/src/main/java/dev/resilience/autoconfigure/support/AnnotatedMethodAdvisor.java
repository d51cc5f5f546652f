package dev.resilience.autoconfigure.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Applies one capability's annotation through Spring's auto-proxying (AspectJ is not needed):
 * an {@link AnnotatedMethodPointcut} picks the methods, and each call runs the capability's
 * {@link BindingInterceptor} with the method's binding from {@link AnnotatedMethods}. The methods
 * are looked up on the first call and kept, so that making proxies never creates what the
 * bindings need (such as a registry, its listeners and a meter registry) early.
 *
 * @param <B> the binding the capability makes of one method
 */
public class AnnotatedMethodAdvisor<B> extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient AnnotatedMethodPointcut pointcut;

	private final transient Supplier<AnnotatedMethods<B>> methods;

	private final transient BindingInterceptor<B> interceptor;

	private final transient Advice advice;

	/**
	 * Creates the advisor.
	 * @param annotationType the capability's annotation
	 * @param methods supplies the annotated methods when first needed; asked once
	 * @param interceptor runs one call with the method's binding
	 * @param order the advisor's order: lower runs outside
	 */
	public AnnotatedMethodAdvisor(Class<? extends Annotation> annotationType,
			Supplier<? extends AnnotatedMethods<B>> methods, BindingInterceptor<B> interceptor, int order) {
		this.pointcut = new AnnotatedMethodPointcut(annotationType);
		this.methods = SingletonSupplier.of(methods::get);
		this.interceptor = interceptor;
		this.advice = (MethodInterceptor) this::invoke;
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

	private @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Method method = invocation.getMethod();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		B binding = this.methods.get().get(method, targetClass);
		return (binding != null) ? this.interceptor.invoke(invocation, binding) : invocation.proceed();
	}

}
