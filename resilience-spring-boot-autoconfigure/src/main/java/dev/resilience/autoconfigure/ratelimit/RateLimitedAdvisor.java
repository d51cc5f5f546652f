package dev.resilience.autoconfigure.ratelimit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.resilience.autoconfigure.support.AnnotatedMethodAdvisor;
import dev.resilience.autoconfigure.support.AsyncInvocation;
import dev.resilience.autoconfigure.support.BindingInterceptor;
import dev.resilience.autoconfigure.support.ReactorCalls;
import dev.resilience.autoconfigure.support.Stages;
import dev.resilience.internal.ScheduledAttempts;
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
 * scheduled, never slept. A call decided at once that holds nothing (no {@code max-concurrent})
 * runs straight away: its stage is the method's own, its subscriber subscribes to the method's
 * publisher, with nothing chained to give back.
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

	/** Decide, wait, run, read a throttle or a drop, give back: in the three forms. */
	private static final class Interceptor implements BindingInterceptor<RateLimitedMethod> {

		@Override
		public @Nullable Object invoke(MethodInvocation invocation, RateLimitedMethod method) throws Throwable {
			try (Permit permit = method.acquire(invocation.getArguments())) {
				try {
					return AdmittedLimiters.call(method.limiterNames(), invocation::proceed);
				}
				catch (Throwable ex) {
					// Read before the permit goes back: a caller waiting for it then finds the pause,
					// and an adaptive limit learns of the drop.
					if (method.watchesFailures()) {
						method.readFailure(permit, ex);
					}
					throw ex;
				}
			}
		}

		@Override
		public CompletableFuture<@Nullable Object> invokeAsync(AsyncInvocation invocation, RateLimitedMethod method) {
			CompletableFuture<Permit> acquiring = method.acquireAsync(invocation.getArguments(), invocation.getScheduler());
			if (decidedWithNothingToHold(acquiring, method)) {
				Throwable rejection = recordDecided(invocation, acquiring);
				return (rejection != null) ? CompletableFuture.failedFuture(rejection)
						: proceedWatching(invocation, method, acquiring.getNow(null));
			}
			return invocation.proceedHolding(acquiring, (permit) -> record(invocation, permit),
					(permit) -> proceedWatching(invocation, method, permit), Permit::closeAsync);
		}

		@Override
		public Object invokeMono(AsyncInvocation invocation, RateLimitedMethod method) {
			CompletableFuture<Permit> acquiring = method.acquireAsync(invocation.getArguments(), invocation.getScheduler());
			if (decidedWithNothingToHold(acquiring, method)) {
				Throwable rejection = recordDecided(invocation, acquiring);
				return (rejection != null) ? ReactorCalls.errorMono(rejection)
						: watching(invocation.proceedMono(), false, invocation, method, acquiring.getNow(null));
			}
			return ReactorCalls.fromFuture(invocation.proceedHolding(acquiring, (permit) -> record(invocation, permit),
					(permit) -> proceedWatching(invocation, method, permit), Permit::closeAsync));
		}

		@Override
		public Object invokeFlux(AsyncInvocation invocation, RateLimitedMethod method) {
			CompletableFuture<Permit> acquiring = method.acquireAsync(invocation.getArguments(), invocation.getScheduler());
			if (decidedWithNothingToHold(acquiring, method)) {
				Throwable rejection = recordDecided(invocation, acquiring);
				return (rejection != null) ? ReactorCalls.errorFlux(rejection)
						: watching(invocation.proceedPublisher(), true, invocation, method, acquiring.getNow(null));
			}
			return ReactorCalls.fluxHolding(() -> acquiring, (permit) -> {
				record(invocation, permit);
				return watching(invocation.proceedPublisher(), true, invocation, method, permit);
			}, (permit, failure) -> permit.closeAsync(), Permit::closeAsync);
		}

		/**
		 * Runs the rest of the call marked as admitted by the method's limiters; a failure reaches
		 * the caller once the keys its throttle signal pauses are paused, and a drop is recorded on
		 * the permit.
		 */
		private static CompletableFuture<@Nullable Object> proceedWatching(AsyncInvocation invocation,
				RateLimitedMethod method, Permit permit) {
			CompletableFuture<@Nullable Object> call;
			try {
				call = AdmittedLimiters.call(method.limiterNames(), invocation::proceed);
			}
			catch (Throwable ex) {
				call = CompletableFuture.failedFuture(ex); // proceed() never throws; the marking neither
			}
			if (!method.watchesFailures()) {
				return call;
			}
			CompletableFuture<@Nullable Object> watched = new CompletableFuture<>();
			Stages.cancelWith(watched, call);
			call.whenComplete((value, failure) -> {
				if (failure == null) {
					watched.complete(value);
					return;
				}
				Throwable cause = ScheduledAttempts.unwrap(failure);
				method.readFailureAsync(permit, cause, invocation.getScheduler())
					.whenComplete((paused, ignored) -> watched.completeExceptionally(cause));
			});
			return watched;
		}

		/**
		 * A publisher of the method marked as admitted by its limiters, whose failure pauses and
		 * records a drop first.
		 */
		private static Object watching(Object publisher, boolean flux, AsyncInvocation invocation,
				RateLimitedMethod method, Permit permit) {
			Object marked = ReactorCalls.contextWrite(publisher, flux,
					(context) -> AdmittedLimiters.mark(context, method.limiterNames()));
			return method.watchesFailures() ? ReactorCalls.beforeError(marked, flux,
					(failure) -> method.readFailureAsync(permit, failure, invocation.getScheduler())) : marked;
		}

		/**
		 * The common case, run with nothing chained: the call was decided on this thread (admitted at
		 * once, or rejected), and an admitted call holds nothing to give back when it ends, as no
		 * limiter has {@code max-concurrent}. A call that waits, or holds a permit, is chained on its
		 * admission and gives back when its outcome is known.
		 */
		private static boolean decidedWithNothingToHold(CompletableFuture<Permit> acquiring, RateLimitedMethod method) {
			return acquiring.isDone() && !method.holdsPermits();
		}

		/**
		 * Records the decisions of a call decided at once.
		 * @return the rejection, or {@code null} when the call was admitted
		 */
		private static @Nullable Throwable recordDecided(AsyncInvocation invocation, CompletableFuture<Permit> decided) {
			try {
				record(invocation, decided.getNow(null));
				return null;
			}
			catch (CompletionException ex) {
				return ScheduledAttempts.unwrap(ex);
			}
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
