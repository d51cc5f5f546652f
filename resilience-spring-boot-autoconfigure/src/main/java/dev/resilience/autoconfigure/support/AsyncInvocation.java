package dev.resilience.autoconfigure.support;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.KotlinDetector;

import dev.resilience.internal.ScheduledAttempts;
import dev.resilience.pool.HeldConnectionAccessor;

/**
 * One call of an annotated method whose outcome arrives later (any {@link ReturnKind} but
 * {@link ReturnKind#BLOCKING}), as a capability's advice sees it: the arguments, the scheduler for every timed continuation, and
 * the rest of the call to run, as often as the capability needs (each retry or poll attempt
 * invokes the method again for a {@code CompletionStage}, or subscribes again for a {@code Mono}).
 * The caller's context (thread locals such as the MDC, the observation and the security
 * context, captured when the call was made or the publisher subscribed) is restored around each
 * invocation, whatever thread runs it.
 */
public final class AsyncInvocation {

	private final MethodInvocation invocation;

	private final ReturnKind kind;

	private final ScheduledExecutorService scheduler;

	private final ContextSnapshotFactory contextSnapshots;

	private final ContextSnapshot context;

	private final @Nullable Object reactorContext;

	/**
	 * For a {@code Mono} or {@code Flux}: the publisher the rest of the call returned for this
	 * subscription, made on the first attempt and subscribed to again for each later one (the
	 * advice inside decides again on each subscription, as its publishers are deferred).
	 */
	private @Nullable Object publisher;

	AsyncInvocation(MethodInvocation invocation, ReturnKind kind, ScheduledExecutorService scheduler,
			ContextSnapshotFactory contextSnapshots, ContextSnapshot context, @Nullable Object reactorContext) {
		this.invocation = invocation;
		this.kind = kind;
		this.scheduler = new ContextRestoringScheduler(scheduler, context);
		this.contextSnapshots = contextSnapshots;
		this.context = context;
		this.reactorContext = reactorContext;
	}

	/**
	 * Returns the call's arguments.
	 * @return the arguments
	 */
	public @Nullable Object[] getArguments() {
		return this.invocation.getArguments();
	}

	/**
	 * Returns the bean called.
	 * @return the target, or {@code null} for none
	 */
	public @Nullable Object getThis() {
		return this.invocation.getThis();
	}

	/**
	 * Returns the scheduler that runs every timed continuation of the call, each with the caller's
	 * context restored (a condition, a listener, a fallback or the next attempt sees it as the
	 * blocking form would on the caller's thread).
	 * @return the scheduler
	 */
	public ScheduledExecutorService getScheduler() {
		return this.scheduler;
	}

	/**
	 * Looks up a value of the subscriber's Reactor context, for a {@code Mono} or {@code Flux}.
	 * @param <T> the value's type
	 * @param key the key, a type by convention
	 * @return the value, or {@code null} when there is none or the call is not reactive
	 */
	public <T> @Nullable T contextValue(Class<T> key) {
		Object reactorContext = this.reactorContext;
		return (reactorContext != null) ? ReactorCalls.contextValue(reactorContext, key) : null;
	}

	/**
	 * Runs one attempt with the caller's context and returns its outcome: for a
	 * {@code CompletionStage}, the rest of the call (the advice inside, then the method) runs once
	 * more and its stage is the outcome; for a {@code Mono}, the publisher the method returned
	 * (on the first attempt) is subscribed to once more. Never throws: what the invocation throws
	 * fails the future. Cancelling the future cancels the stage, or disposes the subscription.
	 * @return the outcome
	 */
	public CompletableFuture<@Nullable Object> proceed() {
		try (ContextSnapshot.Scope scope = this.context.setThreadLocals(AsyncInvocation::notHeldConnections)) {
			return toFuture((this.kind == ReturnKind.COMPLETION_STAGE) ? RepeatedInvocation.proceed(this.invocation)
					: publisher());
		}
		catch (Throwable ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private @Nullable Object publisher() throws Throwable {
		Object publisher = this.publisher;
		if (publisher == null) {
			publisher = (this.invocation instanceof ProxyMethodInvocation proxyInvocation
					&& KotlinDetector.isSuspendingFunction(this.invocation.getMethod()))
							? proxyInvocation.invocableClone(SuspendingCalls
								.withContext(proxyInvocation.getArguments(), this.contextSnapshots.captureAll()))
								.proceed()
							: RepeatedInvocation.proceed(this.invocation);
			this.publisher = publisher;
		}
		return publisher;
	}

	/**
	 * Whether a context key is restored by {@link #proceed()}: all but the connections the pools
	 * hold, which belong to the thread that proceeds. A pool's advice proceeds with its connection
	 * set; restoring the call's context as the advice found it would hide that connection.
	 */
	private static boolean notHeldConnections(Object key) {
		return !HeldConnectionAccessor.KEY.equals(key);
	}

	/**
	 * Returns the publisher the rest of the call gives for this subscription to a {@code Mono}, for
	 * the subscriber to subscribe to directly: for an advice that has nothing left to do once the
	 * call runs (see {@link BindingInterceptor#invokeMono}). What the invocation throws, or a
	 * {@code null} the method returns, is the {@code Mono}'s failure. Only for
	 * {@link ReturnKind#MONO}, and only from {@link BindingInterceptor#invokeMono}: it runs on the
	 * subscribing thread, where the subscriber's context is set already.
	 * @return the publisher, typed {@code Object} so that this class needs no Reactor
	 */
	public Object proceedMono() {
		try {
			Object publisher = publisher();
			return (publisher != null) ? publisher : ReactorCalls.errorMono(returnedNull());
		}
		catch (Throwable ex) {
			return ReactorCalls.errorMono(ex);
		}
	}

	/**
	 * Returns the {@code Flux} the rest of the call gives for one attempt, subscribed with the
	 * subscriber's Reactor context: made on the first attempt, the same publisher again for each
	 * later one. Only for {@link ReturnKind#FLUX}.
	 * @return the publisher, typed {@code Object} so that this class needs no Reactor
	 */
	public Object proceedPublisher() {
		try (ContextSnapshot.Scope scope = this.context.setThreadLocals(AsyncInvocation::notHeldConnections)) {
			return ReactorCalls.contextualFlux(publisher(), this.reactorContext);
		}
		catch (Throwable ex) {
			return ReactorCalls.errorFlux(ex);
		}
	}

	/**
	 * Turns a value of the method's return type (such as what a fallback method returned) into
	 * its outcome.
	 * @param value a {@code CompletionStage} or a {@code Mono}, as the method returns
	 * @return the outcome
	 */
	public CompletableFuture<@Nullable Object> toFuture(@Nullable Object value) {
		if (value == null) {
			return CompletableFuture.failedFuture(returnedNull());
		}
		if (this.kind == ReturnKind.COMPLETION_STAGE) {
			@SuppressWarnings("unchecked")
			CompletionStage<@Nullable Object> stage = (CompletionStage<@Nullable Object>) value;
			return stage.toCompletableFuture();
		}
		return ReactorCalls.toFuture(value, this.reactorContext);
	}

	private IllegalStateException returnedNull() {
		return new IllegalStateException(AnnotationAttributeResolver.describe(this.invocation.getMethod())
				+ " returned null instead of a " + this.kind.description());
	}

	/**
	 * Runs the rest of the call while holding something a capability took for it (a rate-limit
	 * permit), and gives it back exactly once when the outcome is known or the call is cancelled,
	 * whichever comes first. Cancelling the returned future while {@code acquiring} is pending
	 * cancels it, which gives back whatever it took.
	 * @param <H> what is held
	 * @param acquiring completes with what is held once the call may run
	 * @param admitted told what is held just before the call runs
	 * @param release gives it back; must not block
	 * @return the outcome
	 */
	public <H> CompletableFuture<@Nullable Object> proceedHolding(CompletableFuture<H> acquiring,
			Consumer<? super H> admitted, Function<? super H, ? extends CompletionStage<?>> release) {
		return proceedHolding(acquiring, admitted, (held) -> proceed(), release);
	}

	/**
	 * Runs the rest of the call while holding something, as
	 * {@link #proceedHolding(CompletableFuture, Consumer, Function)} does, through the capability's
	 * own step around it (which watches the outcome, say).
	 * @param <H> what is held
	 * @param acquiring completes with what is held once the call may run
	 * @param admitted told what is held just before the call runs
	 * @param call runs the rest of the call with what is held, usually around {@link #proceed()};
	 * must not throw
	 * @param release gives it back; must not block
	 * @return the outcome
	 */
	public <H> CompletableFuture<@Nullable Object> proceedHolding(CompletableFuture<H> acquiring,
			Consumer<? super H> admitted, Function<? super H, CompletableFuture<@Nullable Object>> call,
			Function<? super H, ? extends CompletionStage<?>> release) {
		CompletableFuture<@Nullable Object> outcome = new CompletableFuture<>();
		Stages.cancelWith(outcome, acquiring);
		acquiring.whenComplete((held, failure) -> {
			if (failure != null) {
				outcome.completeExceptionally(ScheduledAttempts.unwrap(failure));
				return;
			}
			if (outcome.isDone()) {
				// Cancelled while the admission was on its way: it is not used, so it goes back.
				release.apply(held);
				return;
			}
			CompletableFuture<@Nullable Object> running;
			try {
				admitted.accept(held);
				running = call.apply(held);
			}
			catch (RuntimeException | Error ex) {
				running = CompletableFuture.failedFuture(ex);
			}
			Stages.cancelWith(outcome, running);
			running.whenComplete((value, callFailure) -> {
				// A callback that throws would leave the caller waiting forever: complete it whatever
				// the give-back does.
				try {
					release.apply(held);
				}
				finally {
					Stages.complete(outcome, value, callFailure);
				}
			});
		});
		return outcome;
	}

}
