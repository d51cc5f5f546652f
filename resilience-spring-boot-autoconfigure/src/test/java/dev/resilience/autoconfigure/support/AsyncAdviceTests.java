package dev.resilience.autoconfigure.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Publisher;
import reactor.blockhound.BlockHound;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

import dev.resilience.TestCaller;
import dev.resilience.autoconfigure.Failures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The plumbing every capability's asynchronous forms run on, tested with a capability of its own
 * that holds a "permit" (a number) over each call, taken from a future the test completes: when
 * the method runs, what it returns, when the permit goes back, what a cancellation does, and
 * which return types stop startup.
 */
@ExtendWith(TestCaller.Registered.class)
class AsyncAdviceTests {

	private static final ThreadLocal<@Nullable String> CALLER = TestCaller.CURRENT;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
		.withUserConfiguration(HeldConfiguration.class);

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	@Test
	void stageMethodRunsOnlyOnceAdmittedAndHoldsUntilItsStageCompletes() {
		this.contextRunner.withBean(StageService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			StageService service = context.getBean(StageService.class);
			CompletableFuture<String> returned = service.call("a").toCompletableFuture();
			assertThat(service.invocations()).hasValue(0);
			assertThat(returned).isNotDone();
			holds.admitNext(1);
			assertThat(service.invocations()).hasValue(1);
			assertThat(holds.released).isEmpty();
			service.results().poll().complete("done");
			assertThat(returned).isCompletedWithValue("done");
			assertThat(holds.released).containsExactly(1);
		});
	}

	@Test
	void stageMethodFailureCompletesTheReturnedStageAndGivesBack() {
		this.contextRunner.withBean(StageService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			StageService service = context.getBean(StageService.class);
			CompletableFuture<String> returned = service.call("a").toCompletableFuture();
			holds.admitNext(7);
			service.results().poll().completeExceptionally(new IllegalStateException("boom"));
			assertThat(returned).failsWithin(Duration.ZERO)
				.withThrowableOfType(java.util.concurrent.ExecutionException.class)
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessage("boom");
			assertThat(holds.released).containsExactly(7);
		});
	}

	@Test
	void rejectionCompletesTheReturnedStageWithoutInvokingOrThrowing() {
		this.contextRunner.withBean(StageService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			StageService service = context.getBean(StageService.class);
			CompletableFuture<String> returned = service.call("a").toCompletableFuture();
			holds.pending.poll().completeExceptionally(new IllegalArgumentException("rejected"));
			assertThat(returned).isCompletedExceptionally();
			assertThat(service.invocations()).hasValue(0);
			assertThat(holds.released).isEmpty();
		});
	}

	@Test
	void cancellingWhileWaitingCancelsTheAdmission() {
		this.contextRunner.withBean(StageService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			StageService service = context.getBean(StageService.class);
			CompletableFuture<String> returned = service.call("a").toCompletableFuture();
			CompletableFuture<Integer> admission = holds.pending.peek();
			returned.cancel(true);
			assertThat(admission).isCancelled();
			assertThat(service.invocations()).hasValue(0);
		});
	}

	@Test
	void cancellingWhileRunningCancelsTheStageAndGivesBackOnce() {
		this.contextRunner.withBean(StageService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			StageService service = context.getBean(StageService.class);
			CompletableFuture<String> returned = service.call("a").toCompletableFuture();
			holds.admitNext(3);
			CompletableFuture<String> inner = service.results().poll();
			returned.cancel(true);
			assertThat(inner).isCancelled();
			inner.complete("late");
			assertThat(holds.released).containsExactly(3);
		});
	}

	@Test
	void admissionArrivingAfterCancelIsGivenBackUnused() {
		this.contextRunner.withBean(StageService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			holds.ignoreCancel = true;
			StageService service = context.getBean(StageService.class);
			CompletableFuture<String> returned = service.call("a").toCompletableFuture();
			returned.cancel(true);
			holds.admitNext(9);
			assertThat(service.invocations()).hasValue(0);
			assertThat(holds.released).containsExactly(9);
		});
	}

	@Test
	void continuationsRunWithTheCallersContext() {
		this.contextRunner.withBean(StageService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			StageService service = context.getBean(StageService.class);
			CALLER.set("alice");
			CompletableFuture<String> returned;
			try {
				returned = service.call("a").toCompletableFuture();
			}
			finally {
				CALLER.remove();
			}
			CompletableFuture<@Nullable String> seenDownstream = returned.thenApply((value) -> CALLER.get());
			// Admitted from another thread, as a scheduler or a store's client would.
			CompletableFuture.runAsync(() -> {
				holds.admitNext(1);
				service.results().poll().complete("done");
			}).get(5, TimeUnit.SECONDS);
			assertThat(service.callers()).containsExactly("alice");
			assertThat(seenDownstream.get(5, TimeUnit.SECONDS)).isEqualTo("alice");
		});
	}

	@Test
	void tasksOnTheCallsSchedulerRunWithTheCallersContext() {
		this.contextRunner.withBean(StageService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			StageService service = context.getBean(StageService.class);
			CALLER.set("bob");
			try {
				service.call("a");
			}
			finally {
				CALLER.remove();
			}
			AsyncInvocation invocation = holds.invocations.poll();
			assertThat(invocation).isNotNull();
			CompletableFuture<@Nullable String> seen = new CompletableFuture<>();
			invocation.getScheduler().schedule(() -> seen.complete(CALLER.get()), 1, TimeUnit.MILLISECONDS);
			assertThat(seen.get(5, TimeUnit.SECONDS)).isEqualTo("bob");
			assertThat(CALLER.get()).isNull();
			assertThatExceptionOfType(UnsupportedOperationException.class)
				.isThrownBy(() -> invocation.getScheduler().shutdown());
		});
	}

	@Test
	void monoAssembledManyTimesDecidesNothingUntilSubscribed() {
		this.contextRunner.withBean(ReactiveService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			ReactiveService service = context.getBean(ReactiveService.class);
			List<Mono<String>> assembled = List.of(service.mono("a"), service.mono("b"), service.mono("c"));
			assertThat(holds.pending).isEmpty();
			assertThat(service.invocations()).hasValue(0);
			Mono<String> first = assembled.get(0);
			StepVerifier.create(first).then(() -> holds.admitNext(1)).expectNext("mono:a").verifyComplete();
			StepVerifier.create(first).then(() -> holds.admitNext(2)).expectNext("mono:a").verifyComplete();
			assertThat(service.invocations()).hasValue(2);
			assertThat(holds.released).containsExactly(1, 2);
		});
	}

	@Test
	void monoSeesTheSubscribersReactorContextAndWorksOnANonBlockingThread() {
		this.contextRunner.withBean(ReactiveService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			holds.admitAtOnce = true;
			ReactiveService service = context.getBean(ReactiveService.class);
			Mono<String> call = service.mono("a")
				.contextWrite((reactorContext) -> reactorContext.put(String.class, "from-subscriber"))
				.subscribeOn(Schedulers.parallel());
			StepVerifier.create(call).expectNext("mono:a").verifyComplete();
			assertThat(holds.seenContext).containsExactly("from-subscriber");
			assertThat(service.seenContext()).containsExactly("from-subscriber");
		});
	}

	@Test
	void cancellingAMonoSubscriptionWhileWaitingCancelsTheAdmission() {
		this.contextRunner.withBean(ReactiveService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			ReactiveService service = context.getBean(ReactiveService.class);
			Disposable subscription = service.mono("a").subscribe();
			CompletableFuture<Integer> admission = holds.pending.peek();
			subscription.dispose();
			assertThat(admission).isCancelled();
			assertThat(service.invocations()).hasValue(0);
		});
	}

	@Test
	void fluxHoldsUntilItCompletesAndGivesBackOnCancel() {
		this.contextRunner.withBean(ReactiveService.class).run((context) -> {
			Holds holds = context.getBean(Holds.class);
			ReactiveService service = context.getBean(ReactiveService.class);
			Flux<String> flux = service.flux();
			assertThat(holds.pending).isEmpty();
			StepVerifier.create(flux)
				.then(() -> holds.admitNext(4))
				.then(() -> service.sink().tryEmitNext("x"))
				.expectNext("x")
				.then(() -> assertThat(holds.released).isEmpty())
				.then(() -> service.sink().tryEmitComplete())
				.verifyComplete();
			assertThat(holds.released).containsExactly(4);
			service.resetSink();
			StepVerifier.create(service.flux())
				.then(() -> holds.admitNext(5))
				.then(() -> service.sink().tryEmitNext("y"))
				.expectNext("y")
				.thenCancel()
				.verify();
			assertThat(holds.released).containsExactly(4, 5);
		});
	}

	@Test
	void plainFutureStopsStartupNamingMethodAndType() {
		this.contextRunner.withBean(FutureService.class)
			.run((context) -> assertThat(Failures.messages(context.getStartupFailure()))
				.anySatisfy((message) -> assertThat(message).contains("@Held on FutureService.call()")
					.contains("java.util.concurrent.Future")
					.contains("return a CompletionStage")));
	}

	@Test
	void subtypeOfCompletableFutureStopsStartup() {
		this.contextRunner.withBean(FutureTaskService.class)
			.run((context) -> assertThat(Failures.messages(context.getStartupFailure()))
				.anySatisfy((message) -> assertThat(message).contains("@Held on FutureTaskService.call()")
					.contains("java.util.concurrent.FutureTask")));
	}

	@Test
	void otherReactiveTypeStopsStartup() {
		this.contextRunner.withBean(PublisherService.class)
			.run((context) -> assertThat(Failures.messages(context.getStartupFailure()))
				.anySatisfy((message) -> assertThat(message).contains("@Held on PublisherService.call()")
					.contains("org.reactivestreams.Publisher")
					.contains("the supported asynchronous types are")));
	}

	@Test
	void stageMethodsWorkWithoutReactor() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("reactor.core"))
			.withBean(StageService.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Holds holds = context.getBean(Holds.class);
				holds.admitAtOnce = true;
				StageService service = context.getBean(StageService.class);
				CompletableFuture<String> returned = service.call("a").toCompletableFuture();
				service.results().poll().complete("ok");
				assertThat(returned).isCompletedWithValue("ok");
			});
	}

	@Test
	void returnKindsOfMethods() throws Exception {
		assertThat(ReturnKind.of(StageService.class.getMethod("call", String.class), Held.class))
			.isEqualTo(ReturnKind.COMPLETION_STAGE);
		assertThat(ReturnKind.of(ReactiveService.class.getMethod("mono", String.class), Held.class))
			.isEqualTo(ReturnKind.MONO);
		assertThat(ReturnKind.of(ReactiveService.class.getMethod("flux"), Held.class)).isEqualTo(ReturnKind.FLUX);
		assertThat(ReturnKind.of(Object.class.getMethod("toString"), Held.class)).isEqualTo(ReturnKind.BLOCKING);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> ReturnKind.of(FutureService.class.getMethod("call"), Held.class));
	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@interface Held {

	}

	/** The admissions the test completes and the permits given back. */
	static class Holds {

		final Queue<CompletableFuture<Integer>> pending = new ConcurrentLinkedQueue<>();

		final List<Integer> released = new CopyOnWriteArrayList<>();

		final List<@Nullable Object> seenContext = new CopyOnWriteArrayList<>();

		final Queue<AsyncInvocation> invocations = new ConcurrentLinkedQueue<>();

		volatile boolean admitAtOnce;

		volatile boolean ignoreCancel;

		private final AtomicInteger next = new AtomicInteger();

		CompletableFuture<Integer> take() {
			if (this.admitAtOnce) {
				return CompletableFuture.completedFuture(this.next.incrementAndGet());
			}
			CompletableFuture<Integer> admission = this.ignoreCancel ? new CompletableFuture<>() {
				@Override
				public boolean cancel(boolean mayInterruptIfRunning) {
					return false;
				}
			} : new CompletableFuture<>();
			this.pending.add(admission);
			return admission;
		}

		void admitNext(int permit) {
			CompletableFuture<Integer> admission = this.pending.poll();
			assertThat(admission).as("a pending admission").isNotNull();
			admission.complete(permit);
		}

	}

	/** Takes a permit, runs the call while holding it, gives it back. */
	static final class HoldingInterceptor implements BindingInterceptor<Holds> {

		@Override
		public @Nullable Object invoke(MethodInvocation invocation, Holds holds) throws Throwable {
			return invocation.proceed();
		}

		@Override
		public CompletableFuture<@Nullable Object> invokeAsync(AsyncInvocation invocation, Holds holds) {
			holds.invocations.add(invocation);
			return invocation.proceedHolding(holds.take(),
					(permit) -> holds.seenContext.add(invocation.contextValue(String.class)), (permit) -> {
						holds.released.add(permit);
						return CompletableFuture.completedFuture(null);
					});
		}

		@Override
		public Object invokeFlux(AsyncInvocation invocation, Holds holds) {
			return ReactorCalls.fluxHolding(holds::take, (permit) -> invocation.proceedPublisher(),
					(permit, failure) -> release(holds, permit), (permit) -> release(holds, permit));
		}

		private static CompletableFuture<@Nullable Object> release(Holds holds, int permit) {
			holds.released.add(permit);
			return CompletableFuture.completedFuture(null);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HeldConfiguration {

		@Bean
		static Holds holds() {
			return new Holds();
		}

		@Bean
		static AnnotatedMethods<Holds> heldMethods(ObjectProvider<Holds> holds,
				ConfigurableListableBeanFactory beanFactory) {
			return new AnnotatedMethods<>(Held.class, (method, targetClass, kind, proposed) -> holds.getObject(), beanFactory);
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static AnnotatedMethodAdvisor<Holds> heldAdvisor(ObjectProvider<AnnotatedMethods<Holds>> methods) {
			return new AnnotatedMethodAdvisor<>(Held.class, methods::getObject, new HoldingInterceptor(), 0);
		}

	}

	/** Public, with public accessors: proxied from a filtered class loader too. */
	public static class StageService {

		final AtomicInteger invocations = new AtomicInteger();

		final Queue<CompletableFuture<String>> results = new ConcurrentLinkedQueue<>();

		final List<@Nullable String> callers = new CopyOnWriteArrayList<>();

		public AtomicInteger invocations() {
			return this.invocations;
		}

		public Queue<CompletableFuture<String>> results() {
			return this.results;
		}

		public List<@Nullable String> callers() {
			return this.callers;
		}

		@Held
		public CompletionStage<String> call(String argument) {
			this.invocations.incrementAndGet();
			this.callers.add(CALLER.get());
			CompletableFuture<String> result = new CompletableFuture<>();
			this.results.add(result);
			return result;
		}

	}

	static class ReactiveService {

		final AtomicInteger invocations = new AtomicInteger();

		final List<@Nullable Object> seenContext = new CopyOnWriteArrayList<>();

		volatile Sinks.Many<String> sink = Sinks.many().unicast().onBackpressureBuffer();

		AtomicInteger invocations() {
			return this.invocations;
		}

		List<@Nullable Object> seenContext() {
			return this.seenContext;
		}

		Sinks.Many<String> sink() {
			return this.sink;
		}

		@Held
		public Mono<String> mono(String argument) {
			return Mono.deferContextual((context) -> {
				this.invocations.incrementAndGet();
				this.seenContext.add(context.getOrDefault(String.class, null));
				return Mono.just("mono:" + argument);
			});
		}

		@Held
		public Flux<String> flux() {
			return this.sink.asFlux();
		}

		void resetSink() {
			this.sink = Sinks.many().unicast().onBackpressureBuffer();
		}

	}

	static class FutureService {

		@Held
		public Future<String> call() {
			return CompletableFuture.completedFuture("x");
		}

	}

	static class FutureTaskService {

		@Held
		public FutureTask<String> call() {
			return new FutureTask<>(() -> "x");
		}

	}

	static class PublisherService {

		@Held
		public Publisher<String> call() {
			return Mono.just("x");
		}

	}

}
