package dev.resilience.autoconfigure.support;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
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
	 * A {@code Mono} that, on each subscription, runs an advice's asynchronous form and emits its
	 * outcome; cancelling the subscription cancels the advice's future.
	 * @param advice runs the advice with the subscriber's Reactor context
	 * @return the {@code Mono}
	 */
	static Object mono(Function<Object, CompletableFuture<@Nullable Object>> advice) {
		return Mono.deferContextual((context) -> Mono.fromFuture(() -> advice.apply(context), false));
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
	 * @param invocation the call
	 * @param acquire takes it; the future completes once the call may run
	 * @param use runs the method's publisher ({@link AsyncInvocation#proceedPublisher()}) with it
	 * @param release gives it back; must not block
	 * @return the {@code Flux}
	 */
	public static <H> Object fluxHolding(AsyncInvocation invocation, Supplier<CompletableFuture<H>> acquire,
			Function<? super H, Object> use, Function<? super H, ? extends CompletionStage<?>> release) {
		return Flux.usingWhen(Mono.fromFuture(acquire, false), (held) -> asFlux(use.apply(held)),
				(held) -> Mono.fromCompletionStage(release.apply(held)),
				(held, failure) -> Mono.fromCompletionStage(release.apply(held)),
				(held) -> Mono.fromCompletionStage(release.apply(held)));
	}

	/**
	 * A {@code Flux} that subscribes to the method's publisher again after each failure the step
	 * retries, after the delay the step gives, scheduled on the call's scheduler.
	 * @param invocation the call
	 * @param step after each failure: the nanoseconds to wait before subscribing again, or throws
	 * what the {@code Flux} ends with
	 * @return the {@code Flux}
	 */
	public static Object fluxRetrying(AsyncInvocation invocation, FailureStep step) {
		Scheduler scheduler = Schedulers.fromExecutorService(invocation.getScheduler());
		return Flux.defer(() -> asFlux(invocation.proceedPublisher()))
			.retryWhen(reactor.util.retry.Retry.from((signals) -> signals.concatMap((signal) -> {
				long delay;
				try {
					delay = step.delayAfter(signal.failure());
				}
				catch (Throwable end) {
					return Mono.error(end);
				}
				return Mono.delay(Duration.ofNanos(delay), scheduler);
			})));
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
	 * Fails a {@code Flux} with an error at a deadline unless it terminated before, cancelling its
	 * subscription.
	 * @param publisher the publisher
	 * @param nanos the time left
	 * @param timeout makes the error, when the deadline passes
	 * @param invocation the call, whose scheduler times it
	 * @return the {@code Flux}
	 */
	public static Object fluxWithin(Object publisher, long nanos, Supplier<? extends Throwable> timeout,
			AsyncInvocation invocation) {
		Scheduler scheduler = Schedulers.fromExecutorService(invocation.getScheduler());
		Mono<Long> deadline = Mono.delay(Duration.ofNanos(Math.max(0, nanos)), scheduler);
		return asFlux(publisher).takeUntilOther(deadline.then(Mono.error(timeout)));
	}

	/** Decides after each failure of a retried publisher. */
	@FunctionalInterface
	public interface FailureStep {

		/**
		 * Decides after a failure.
		 * @param failure what the publisher failed with
		 * @return the nanoseconds to wait before subscribing again
		 * @throws Throwable what the publisher ends with instead
		 */
		long delayAfter(Throwable failure) throws Throwable;

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

	static Object errorFlux(Throwable failure) {
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
