package dev.resilience.autoconfigure.ratelimit;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.AnnotatedMethodAdvisor;
import dev.resilience.autoconfigure.support.AsyncInvocation;
import dev.resilience.autoconfigure.support.BindingInterceptor;
import dev.resilience.autoconfigure.support.ReactorCalls;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimited;

/**
 * Runs {@link RateLimited @RateLimited} methods only when their
 * limiters admit the call, and returns the concurrency permits when the method returns or
 * throws. It matches by the target class, so an annotation on the class reaches every public
 * method, inherited ones included, and one on an interface or a superclass method is found too.
 * Spring's own auto-proxying applies it; AspectJ is not needed. The methods are read by
 * {@link RateLimitedMethods}, looked up on the first call, so that making proxies never creates
 * the limiters (or their listeners and meter registry) early.
 * <p>
 * A method returning a {@code CompletionStage} is invoked once its limiters admit the call, and
 * holds its permits until the stage completes; a {@code Mono} or {@code Flux} is decided on each
 * subscription and holds its permits until it terminates or is cancelled. A wait for a slot is
 * scheduled, never slept.
 */
public class RateLimitedAdvisor extends AnnotatedMethodAdvisor<RateLimitedMethod> {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the advisor.
	 * @param methods supplies the annotated methods when first needed; asked once
	 * @param order the advisor's order, {@code resilience.aspect-order.rate-limit}
	 */
	public RateLimitedAdvisor(Supplier<? extends RateLimitedMethods> methods, int order) {
		super(RateLimited.class, methods, new Interceptor(), order);
	}

	/** Decide, wait, run, give back: in the three forms. */
	private static final class Interceptor implements BindingInterceptor<RateLimitedMethod> {

		@Override
		public @Nullable Object invoke(MethodInvocation invocation, RateLimitedMethod method) throws Throwable {
			try (Permit permit = method.acquire(invocation.getArguments())) {
				return invocation.proceed();
			}
		}

		@Override
		public CompletableFuture<@Nullable Object> invokeAsync(AsyncInvocation invocation, RateLimitedMethod method) {
			return invocation.proceedHolding(method.acquireAsync(invocation.getArguments(), invocation.getScheduler()),
					(permit) -> record(invocation, permit), Permit::closeAsync);
		}

		@Override
		public Object invokeFlux(AsyncInvocation invocation, RateLimitedMethod method) {
			return ReactorCalls.fluxHolding(
					() -> method.acquireAsync(invocation.getArguments(), invocation.getScheduler()), (permit) -> {
						record(invocation, permit);
						return invocation.proceedPublisher();
					}, (permit, failure) -> permit.closeAsync(), Permit::closeAsync);
		}

		/** Tells a reactive web request the decisions, for its {@code RateLimit} header. */
		private static void record(AsyncInvocation invocation, Permit permit) {
			RateLimitDecisionRecorder recorder = invocation.contextValue(RateLimitDecisionRecorder.class);
			if (recorder != null) {
				for (RateLimitDecision decision : permit.getDecisions()) {
					recorder.record(decision);
				}
			}
		}

	}

}
