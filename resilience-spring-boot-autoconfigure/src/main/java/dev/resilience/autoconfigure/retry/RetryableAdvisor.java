package dev.resilience.autoconfigure.retry;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.AnnotatedMethodAdvisor;
import dev.resilience.autoconfigure.support.AsyncInvocation;
import dev.resilience.autoconfigure.support.BindingInterceptor;
import dev.resilience.autoconfigure.support.ReactorCalls;
import dev.resilience.autoconfigure.support.RepeatedInvocation;
import dev.resilience.retry.RetryExecution;
import dev.resilience.retry.RetryVerdict;
import dev.resilience.retry.Retryable;

/**
 * Retries {@link Retryable @Retryable} methods. Each attempt runs the rest of the advice chain
 * anew, so advice inside this one (such as {@code @RateLimited}) sees every attempt. The methods
 * are read by {@link RetryableMethods}, looked up on the first call. A {@code CompletionStage}
 * method is invoked again, and a {@code Mono} or {@code Flux} subscribed again, for each attempt,
 * the delays scheduled.
 */
public class RetryableAdvisor extends AnnotatedMethodAdvisor<RetryableMethod> {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the advisor.
	 * @param methods supplies the annotated methods when first needed; asked once
	 * @param order the advisor's order, {@code resilience.aspect-order.retry}
	 */
	public RetryableAdvisor(Supplier<? extends RetryableMethods> methods, int order) {
		super(Retryable.class, methods, new Interceptor(), order);
	}

	/** Attempt, decide, wait, fall back: blocking, scheduled, or by subscribing again. */
	private static final class Interceptor implements BindingInterceptor<RetryableMethod> {

		@Override
		public @Nullable Object invoke(MethodInvocation invocation, RetryableMethod method) throws Throwable {
			return method.call(invocation.getThis(), invocation.getArguments(),
					() -> RepeatedInvocation.proceed(invocation));
		}

		@Override
		public CompletableFuture<@Nullable Object> invokeAsync(AsyncInvocation invocation, RetryableMethod method) {
			return method.callAsync(invocation.getThis(), invocation.getArguments(), invocation::proceed,
					invocation::toFuture, invocation.getScheduler());
		}

		@Override
		public Object invokeFlux(AsyncInvocation invocation, RetryableMethod method) {
			RetryExecution execution = method.begin(invocation.getArguments());
			Object retried = ReactorCalls.fluxRetrying(invocation, new ReactorCalls.Attempts() {

				@Override
				public void starting() {
					execution.attemptStarting();
				}

				@Override
				public long delayAfter(Throwable failure) throws Throwable {
					RetryVerdict verdict = execution.failed(failure);
					if (verdict.isRetry()) {
						return verdict.delayNanos();
					}
					throw Objects.requireNonNull(verdict.failure());
				}

				@Override
				public void completed() {
					// A Flux has no single result to judge (retryIfResult is refused at startup).
					execution.returned(null);
				}

				@Override
				public void cancelled() {
					execution.cancel();
				}

			});
			return ReactorCalls.fluxOnError(retried,
					(failure) -> method.fallback(invocation.getThis(), invocation.getArguments(), failure));
		}

	}

}
