package dev.resilience.autoconfigure.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
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
 * {@link BindingInterceptor} with the method's binding from {@link AnnotatedMethods}, in the form
 * the method's {@link ReturnKind} asks for: blocking; a {@code CompletionStage} returned at once;
 * or a {@code Mono} or {@code Flux} that runs the advice on each subscription (through
 * {@link ReactorCalls}, so that nothing of Reactor is loaded for an application without it). The methods
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
		AnnotatedMethods<B> methods = this.methods.get();
		AnnotatedMethods.Bound<B> bound = methods.bound(method, targetClass);
		if (bound == null) {
			return invocation.proceed();
		}
		B binding = bound.binding();
		ReturnKind kind = bound.kind();
		return switch (kind) {
			case BLOCKING -> this.interceptor.invoke(invocation, binding);
			case COMPLETION_STAGE -> invokeStage(invocation, binding, methods.scheduler(), methods.contextSnapshots());
			// The advice starts with the subscriber's context, as it would on the caller's thread: an
			// observation it starts has the subscriber's as its parent.
			case MONO -> ReactorCalls.mono(methods.contextSnapshots(), (snapshot, context) -> invokeMono(
					new AsyncInvocation(invocation, kind, methods.scheduler(), methods.contextSnapshots(), snapshot,
							context), binding));
			case FLUX -> ReactorCalls.flux((context) -> {
				ContextSnapshot snapshot = methods.contextSnapshots().captureAll(context);
				try (ContextSnapshot.Scope scope = snapshot.setThreadLocals()) {
					return this.interceptor.invokeFlux(
							new AsyncInvocation(invocation, kind, methods.scheduler(), methods.contextSnapshots(),
									snapshot, context),
							binding);
				}
			});
		};
	}

	/**
	 * Runs the advice and returns at once with a future of the outcome, which is completed with the
	 * caller's context restored, so that what the caller chains on it sees that context too.
	 */
	private CompletableFuture<@Nullable Object> invokeStage(MethodInvocation invocation, B binding,
			ScheduledExecutorService scheduler, ContextSnapshotFactory contextSnapshots) {
		ContextSnapshot context = contextSnapshots.captureAll();
		CompletableFuture<@Nullable Object> outcome = invokeAsync(
				new AsyncInvocation(invocation, ReturnKind.COMPLETION_STAGE, scheduler, contextSnapshots, context, null),
				binding);
		CompletableFuture<@Nullable Object> returned = new CompletableFuture<>();
		Stages.cancelWith(returned, outcome);
		outcome.whenComplete((value, failure) -> {
			try (ContextSnapshot.Scope scope = context.setThreadLocals()) {
				Stages.complete(returned, value, failure);
			}
		});
		return returned;
	}

	/** The advice of one subscription to a {@code Mono}, whose own failures fail the {@code Mono}. */
	private Object invokeMono(AsyncInvocation invocation, B binding) {
		try {
			return this.interceptor.invokeMono(invocation, binding);
		}
		catch (RuntimeException | Error ex) {
			return ReactorCalls.errorMono(ex);
		}
	}

	/** The asynchronous advice, whose own failures (a key that does not evaluate, say) fail the future. */
	private CompletableFuture<@Nullable Object> invokeAsync(AsyncInvocation invocation, B binding) {
		try {
			return this.interceptor.invokeAsync(invocation, binding);
		}
		catch (RuntimeException | Error ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}
