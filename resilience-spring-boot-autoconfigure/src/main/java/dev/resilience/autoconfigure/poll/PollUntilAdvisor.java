package dev.resilience.autoconfigure.poll;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.AnnotatedMethodAdvisor;
import dev.resilience.autoconfigure.support.AsyncInvocation;
import dev.resilience.autoconfigure.support.BindingInterceptor;
import dev.resilience.autoconfigure.support.RepeatedInvocation;
import dev.resilience.poll.PollUntil;

/**
 * Calls {@link PollUntil @PollUntil} methods again until their result meets the condition. Each
 * attempt runs the advice inside this one again (so {@code @RateLimited} asks its limiter on
 * every attempt); an exception of the method that is not ignored leaves as itself, checked ones
 * included, so that advice outside (such as a retry) sees what the method threw. A
 * {@code CompletionStage} method is invoked again, and a {@code Mono} subscribed again, for each
 * attempt, the delays scheduled; {@code until} reads the emitted value.
 */
public class PollUntilAdvisor extends AnnotatedMethodAdvisor<PolledMethod> {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the advisor.
	 * @param methods supplies the annotated methods when first needed; asked once
	 * @param order the advisor's order, {@code resilience.aspect-order.poll}
	 */
	public PollUntilAdvisor(Supplier<? extends PolledMethods> methods, int order) {
		super(PollUntil.class, methods, new Interceptor(), order);
	}

	/** Attempt, judge, wait: blocking, or scheduled for a {@code CompletionStage} or {@code Mono}. */
	private static final class Interceptor implements BindingInterceptor<PolledMethod> {

		@Override
		public @Nullable Object invoke(MethodInvocation invocation, PolledMethod method) {
			return method.poller(() -> attempt(invocation), invocation.getArguments()).await();
		}

		@Override
		public CompletableFuture<@Nullable Object> invokeAsync(AsyncInvocation invocation, PolledMethod method) {
			return method.callAsync(invocation::proceed, invocation.getArguments(), invocation.getScheduler());
		}

		/** Never reached: a {@code Flux} has no single value to judge, which binding refuses. */
		@Override
		public Object invokeFlux(AsyncInvocation invocation, PolledMethod method) {
			throw new IllegalStateException("@PollUntil cannot poll a Flux");
		}

	}

	private static @Nullable Object attempt(MethodInvocation invocation) {
		try {
			return RepeatedInvocation.proceed(invocation);
		}
		catch (Throwable ex) {
			throw PollUntilAdvisor.<RuntimeException>rethrow(ex);
		}
	}

	/**
	 * Throws a checked exception through the {@code Supplier} a poller calls, unchanged, so the
	 * poller can ignore it or end with it, and the caller receives what the method declared.
	 */
	@SuppressWarnings("unchecked")
	private static <E extends Throwable> E rethrow(Throwable ex) throws E {
		throw (E) ex;
	}

}
