package dev.resilience.autoconfigure.pool;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.AnnotatedMethodAdvisor;
import dev.resilience.autoconfigure.support.AsyncInvocation;
import dev.resilience.autoconfigure.support.BindingInterceptor;
import dev.resilience.autoconfigure.support.ReactorCalls;
import dev.resilience.pool.ConnectionLease;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.WithConnection;

/**
 * Runs {@link WithConnection @WithConnection} methods with a connection of their pool, within one
 * deadline, on a worker thread carrying the caller's context. Innermost of the resilience advice
 * by default, so each retry or poll attempt gets its own deadline. A {@code CompletionStage},
 * {@code Mono} or {@code Flux} method is invoked once a connection is checked out, without a
 * thread waiting for it, and holds it until the stage completes or the publisher terminates; the
 * deadline covers both.
 */
public class WithConnectionAdvisor extends AnnotatedMethodAdvisor<WithConnectionMethod> {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the advisor.
	 * @param methods supplies the annotated methods when first needed; asked once
	 * @param order the advisor's order, {@code resilience.aspect-order.connection}
	 */
	public WithConnectionAdvisor(Supplier<? extends WithConnectionMethods> methods, int order) {
		super(WithConnection.class, methods, new Interceptor(), order);
	}

	/** Check out, run within the deadline, give back: in the three forms. */
	private static final class Interceptor implements BindingInterceptor<WithConnectionMethod> {

		@Override
		public @Nullable Object invoke(MethodInvocation invocation, WithConnectionMethod method) throws Throwable {
			return method.invoke(invocation);
		}

		@Override
		public CompletableFuture<@Nullable Object> invokeAsync(AsyncInvocation invocation, WithConnectionMethod method) {
			return method.invokeAsync(invocation::proceed);
		}

		/**
		 * Checks out for each subscription, assembles the method's publisher with the connection as
		 * the pool's current one, and ends it at the deadline. A subscription cancelled midway
		 * leaves the connection's state unknown, so it is invalidated rather than reused.
		 */
		@Override
		public Object invokeFlux(AsyncInvocation invocation, WithConnectionMethod method) {
			return fluxWithConnection(invocation, method.pool(), method.timeout());
		}

		private static <T> Object fluxWithConnection(AsyncInvocation invocation, ConnectionPool<T> pool,
				Duration timeout) {
			// Checked out now, for this subscription, while the subscriber's context is restored on
			// this thread: the checkout (its observation's parent, the context the lease carries) is
			// the subscriber's, not whatever the thread that subscribes later holds.
			CompletableFuture<ConnectionLease<T>> checkout = pool.checkoutAsync(timeout);
			return ReactorCalls.fluxHolding(() -> checkout,
					(lease) -> ReactorCalls.fluxUntilFailed(callWithCurrent(lease, invocation), lease.expiry()),
					(lease, failure) -> {
						lease.release(failure);
						return CompletableFuture.completedFuture(null);
					}, (lease) -> {
						lease.invalidate();
						return CompletableFuture.completedFuture(null);
					});
		}

		private static Object callWithCurrent(ConnectionLease<?> lease, AsyncInvocation invocation) {
			try {
				return lease.callWithCurrent(invocation::proceedPublisher);
			}
			catch (Exception ex) {
				// proceedPublisher turns what the method throws into a failed publisher already.
				throw new IllegalStateException(ex);
			}
		}

	}

}
