package dev.resilience.autoconfigure.support;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The Reactor forms of running a capability's advice, the only class of the plumbing that uses
 * Reactor: it is loaded only for a method that returns a {@code Mono} or a {@code Flux} (or is a
 * Kotlin {@code suspend} function), so an application without Reactor never needs it. Its
 * signatures say {@code Object} where they mean a publisher or a Reactor context, so that the
 * classes calling it need no Reactor either.
 * <p>
 * Nothing happens at assembly: each subscription runs the advice anew (a decision, an attempt
 * loop, a checkout), with the subscriber's context.
 */
public final class ReactorCalls {

	private ReactorCalls() {
	}

	/**
	 * A {@code Mono} that, on each subscription, runs an advice with the subscriber's context and
	 * subscribes the subscriber to the publisher the advice gives: the method's own publisher when
	 * nothing stands between (a call its limiters admit at once, with no permit to give back), or
	 * one made of the advice's future ({@link #fromFuture}). The thread locals restored from the
	 * subscriber's context stay set while the advice runs and while the subscriber subscribes to
	 * that publisher, as they would be on the caller's thread.
	 * @param context captures the subscriber's context
	 * @param advice runs the advice for one subscription, told the captured context and the
	 * subscriber's Reactor context; gives the publisher to subscribe to
	 * @return the {@code Mono}
	 */
	static Object mono(ContextSnapshotFactory context, BiFunction<ContextSnapshot, Object, Object> advice) {
		return AdvisedMono.assemble(context, advice);
	}

	/**
	 * A {@code Mono} that emits the outcome of a future; cancelling the subscription cancels the
	 * future.
	 * @param outcome the future
	 * @return the {@code Mono}
	 */
	public static Object fromFuture(CompletableFuture<?> outcome) {
		return Mono.fromFuture(outcome, false);
	}

	/**
	 * A {@code Mono} that fails at once.
	 * @param failure the failure
	 * @return the {@code Mono}
	 */
	public static Object errorMono(Throwable failure) {
		return Mono.error(failure);
	}

	/**
	 * A {@code Flux} that, on each subscription, runs an advice's publisher form.
	 * @param advice gives the publisher, told the subscriber's Reactor context
	 * @return the {@code Flux}
	 */
	static Object flux(Function<Object, Object> advice) {
		return Flux.deferContextual((context) -> asFlux(advice.apply(context)));
	}

	/**
	 * A {@code Flux} that takes something for each subscription (a rate-limit permit, a pooled
	 * connection), runs the method's publisher while holding it, and gives it back exactly once
	 * when the publisher completes, fails or is cancelled. Cancelling while the taking is pending
	 * cancels its future, which gives back whatever it took.
	 * @param <H> what is held
	 * @param acquire takes it; the future completes once the call may run
	 * @param use runs the method's publisher ({@link AsyncInvocation#proceedPublisher()}) with it
	 * @param release gives it back; told the failure, or {@code null} after completion; must not
	 * block
	 * @param cancel gives it back after a cancellation midway; must not block
	 * @return the {@code Flux}
	 */
	public static <H> Object fluxHolding(Supplier<CompletableFuture<H>> acquire, Function<? super H, Object> use,
			BiFunction<? super H, @Nullable Throwable, ? extends CompletionStage<?>> release,
			Function<? super H, ? extends CompletionStage<?>> cancel) {
		// A cancellation racing the acquisition's completion makes Reactor discard the value it
		// could no longer deliver: it is given back then. Giving back is not waited for, so the
		// publisher's end reaches the subscriber at once, on the thread that ended it (never on a
		// store client's thread, nor after a round trip to it).
		@SuppressWarnings("unchecked")
		Mono<H> taken = Mono.fromFuture(acquire, false)
			.doOnDiscard(Object.class, (discarded) -> cancel.apply((H) discarded));
		return Flux.usingWhen(taken, (held) -> asFlux(use.apply(held)),
				(held) -> Mono.fromRunnable(() -> release.apply(held, null)),
				(held, failure) -> Mono.fromRunnable(() -> release.apply(held, failure)),
				(held) -> Mono.fromRunnable(() -> cancel.apply(held)));
	}

	/**
	 * A {@code Flux} that subscribes to the method's publisher again after each failure the
	 * attempts retry, after the delay they give, scheduled on the call's scheduler.
	 * @param invocation the call
	 * @param attempts told of each attempt and decide after each failure
	 * @return the {@code Flux}
	 */
	public static Object fluxRetrying(AsyncInvocation invocation, Attempts attempts) {
		Scheduler scheduler = Schedulers.fromExecutorService(invocation.getScheduler());
		return Flux.defer(() -> {
			attempts.starting();
			return asFlux(invocation.proceedPublisher());
		}).doOnComplete(attempts::completed).retryWhen(reactor.util.retry.Retry.from((signals) -> signals.concatMap((signal) -> {
			long delay;
			try {
				delay = attempts.delayAfter(signal.failure());
			}
			catch (Throwable end) {
				return Mono.error(end);
			}
			return Mono.delay(Duration.ofNanos(delay), scheduler);
		}))).doOnCancel(attempts::cancelled);
	}

	/**
	 * Continues a {@code Flux} that failed with what a fallback gives.
	 * @param publisher the publisher
	 * @param fallback the publisher to continue with after a failure, or throws the failure
	 * @return the {@code Flux}
	 */
	public static Object fluxOnError(Object publisher, FailureHandler fallback) {
		return asFlux(publisher).onErrorResume((failure) -> {
			try {
				return asFlux(fallback.handle(failure));
			}
			catch (Throwable ex) {
				return Flux.error(ex);
			}
		});
	}

	/**
	 * Lets a publisher's failure reach the subscriber only once a step it starts is over (a pause
	 * stored, say), whatever that step's outcome.
	 * @param publisher the {@code Mono} or {@code Flux}
	 * @param flux whether it is a {@code Flux}
	 * @param step started with the failure; completes when the failure may go on, never blocks
	 * @return the publisher of the same kind
	 */
	public static Object beforeError(Object publisher, boolean flux,
			Function<Throwable, ? extends CompletionStage<?>> step) {
		if (flux) {
			return asFlux(publisher).onErrorResume((failure) -> afterStep(step, failure).thenMany(Flux.error(failure)));
		}
		return Mono.from(asPublisher(publisher))
			.onErrorResume((failure) -> afterStep(step, failure).then(Mono.error(failure)));
	}

	private static Mono<Void> afterStep(Function<Throwable, ? extends CompletionStage<?>> step, Throwable failure) {
		return Mono.fromCompletionStage(step.apply(failure)).onErrorResume((ignored) -> Mono.empty()).then();
	}

	/**
	 * Adds to the Reactor context a publisher's subscription sees.
	 * @param publisher the {@code Mono} or {@code Flux}
	 * @param flux whether it is a {@code Flux}
	 * @param write makes the new context (a {@code reactor.util.context.Context}) from the subscriber's
	 * @return the publisher of the same kind
	 */
	public static Object contextWrite(Object publisher, boolean flux, UnaryOperator<Object> write) {
		Function<Context, Context> writer = (context) -> (Context) write.apply(context);
		return flux ? asFlux(publisher).contextWrite(writer) : Mono.from(asPublisher(publisher)).contextWrite(writer);
	}

	/**
	 * Ends a {@code Flux} with the failure of a future (a deadline's), cancelling its subscription,
	 * unless it terminated first.
	 * @param publisher the publisher
	 * @param failing fails when the publisher must end; its normal completion changes nothing
	 * @return the {@code Flux}
	 */
	public static Object fluxUntilFailed(Object publisher, CompletableFuture<?> failing) {
		return asFlux(publisher).takeUntilOther(Mono.fromFuture(failing, false).then(Mono.never()));
	}

	/** The attempts of a retried publisher: told of each, deciding after each failure. */
	public interface Attempts {

		/** Told that an attempt (a subscription) starts. */
		void starting();

		/**
		 * Decides after a failure.
		 * @param failure what the publisher failed with
		 * @return the nanoseconds to wait before subscribing again
		 * @throws Throwable what the publisher ends with instead
		 */
		long delayAfter(Throwable failure) throws Throwable;

		/** Told that an attempt completed. */
		void completed();

		/** Told that the subscriber cancelled: no attempt follows. */
		void cancelled();

	}

	/** Gives what a failed publisher continues with. */
	@FunctionalInterface
	public interface FailureHandler {

		/**
		 * Handles a failure.
		 * @param failure what the publisher failed with
		 * @return the publisher to continue with
		 * @throws Throwable the failure, or another, when the publisher ends with it
		 */
		Object handle(Throwable failure) throws Throwable;

	}

	/**
	 * The operator of {@link #mono}: what {@code Mono.deferContextual} does, except that the
	 * subscription to the advice's publisher happens in the scope of the restored thread locals
	 * (the advice's publisher is often the method's own, and what it does when subscribed sees the
	 * caller's context), and that one scope serves the advice and the subscription.
	 */
	private static final class AdvisedMono extends Mono<Object> {

		private final ContextSnapshotFactory context;

		private final BiFunction<ContextSnapshot, Object, Object> advice;

		private AdvisedMono(ContextSnapshotFactory context, BiFunction<ContextSnapshot, Object, Object> advice) {
			this.context = context;
			this.advice = advice;
		}

		static Mono<Object> assemble(ContextSnapshotFactory context,
				BiFunction<ContextSnapshot, Object, Object> advice) {
			return onAssembly(new AdvisedMono(context, advice));
		}

		@Override
		public void subscribe(CoreSubscriber<? super Object> actual) {
			Context subscriberContext = actual.currentContext();
			ContextSnapshot snapshot = this.context.captureAll(subscriberContext);
			try (ContextSnapshot.Scope scope = snapshot.setThreadLocals()) {
				Publisher<Object> publisher;
				try {
					publisher = asPublisher(Objects.requireNonNull(this.advice.apply(snapshot, subscriberContext),
							"the advice gave no publisher"));
				}
				catch (Throwable ex) {
					Operators.error(actual, Operators.onOperatorError(ex, subscriberContext));
					return;
				}
				publisher.subscribe(actual);
			}
		}

	}

	static <T> @Nullable T contextValue(Object context, Class<T> key) {
		return ((ContextView) context).getOrDefault(key, null);
	}

	static CompletableFuture<@Nullable Object> toFuture(Object mono, @Nullable Object context) {
		Mono<?> publisher = Mono.from(asPublisher(mono));
		@SuppressWarnings("unchecked")
		CompletableFuture<@Nullable Object> future = (CompletableFuture<@Nullable Object>) (CompletableFuture<?>) withContext(
				publisher, context)
			.toFuture();
		return future;
	}

	static Object contextualFlux(@Nullable Object publisher, @Nullable Object context) {
		if (publisher == null) {
			return Flux.error(new IllegalStateException("The method returned null instead of a Flux"));
		}
		Flux<?> flux = Flux.from(asPublisher(publisher));
		return (context != null) ? flux.contextWrite(Context.of((ContextView) context)) : flux;
	}

	/**
	 * A {@code Flux} that fails at once.
	 * @param failure the failure
	 * @return the {@code Flux}
	 */
	public static Object errorFlux(Throwable failure) {
		return Flux.error(failure);
	}

	private static Mono<?> withContext(Mono<?> mono, @Nullable Object context) {
		return (context != null) ? mono.contextWrite(Context.of((ContextView) context)) : mono;
	}

	private static Flux<Object> asFlux(Object publisher) {
		return Flux.from(asPublisher(publisher));
	}

	@SuppressWarnings("unchecked")
	private static Publisher<Object> asPublisher(Object publisher) {
		return (Publisher<Object>) publisher;
	}

}
