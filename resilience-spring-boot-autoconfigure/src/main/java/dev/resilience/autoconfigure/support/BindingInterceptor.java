package dev.resilience.autoconfigure.support;

import java.util.concurrent.CompletableFuture;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * A capability's advice: runs one call of an annotated method with the method's binding. The
 * capability states its policy once (decide, wait, run, give back) in three forms the plumbing
 * picks from by the method's {@link ReturnKind}: blocking, asynchronous (for a
 * {@code CompletionStage}, and for a {@code Mono} through {@link ReactorCalls} unless
 * {@link #invokeMono} says otherwise), and as a publisher for a {@code Flux}.
 *
 * @param <B> the binding made by the capability's {@link MethodBinder}
 */
public interface BindingInterceptor<B> {

	/**
	 * Runs a blocking call, usually around {@link MethodInvocation#proceed()}.
	 * @param invocation the call
	 * @param binding the method's binding
	 * @return the call's result
	 * @throws Throwable what the call or the capability throws
	 */
	@Nullable Object invoke(MethodInvocation invocation, B binding) throws Throwable;

	/**
	 * Runs a call whose outcome arrives later, without blocking the calling thread: every wait is
	 * scheduled on {@link AsyncInvocation#getScheduler()}, and the outcome, a failure of the
	 * capability's own included, completes the returned future. Cancelling the future gives back
	 * whatever the call holds.
	 * @param invocation the call
	 * @param binding the method's binding
	 * @return the outcome
	 */
	CompletableFuture<@Nullable Object> invokeAsync(AsyncInvocation invocation, B binding);

	/**
	 * Runs a call of a method returning a {@code Mono} (or a Kotlin {@code suspend} function), for
	 * one subscription, on the subscribing thread with the subscriber's context set: gives the
	 * publisher the subscriber is subscribed to. By default, the outcome of
	 * {@link #invokeAsync}; a capability overrides it where a subscription can go straight to the
	 * method's publisher ({@link AsyncInvocation#proceedMono()}) with no future between, such as a
	 * call its limiters admit at once with nothing to give back.
	 * @param invocation the call
	 * @param binding the method's binding
	 * @return the publisher, built with {@link ReactorCalls} or given by {@link AsyncInvocation}
	 */
	default Object invokeMono(AsyncInvocation invocation, B binding) {
		return ReactorCalls.fromFuture(invokeAsync(invocation, binding));
	}

	/**
	 * Runs a call of a method returning a {@code Flux}, for one subscription.
	 * @param invocation the call
	 * @param binding the method's binding
	 * @return the publisher, built with {@link ReactorCalls}
	 */
	Object invokeFlux(AsyncInvocation invocation, B binding);

}
