package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Subscription;
import reactor.blockhound.BlockHound;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.TestCaller;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The boundaries of {@code @RateLimited}'s asynchronous and reactive forms, on real proxied beans
 * with BlockHound installed: a call its limiter admits at once with nothing to hold goes straight
 * to the method (a {@code Mono}'s or {@code Flux}'s subscriber subscribes to the method's own
 * publisher, the subscriber's demand reaching it as asked), against a call rejected at once, one
 * that has to wait for its slot, and one that holds a {@code max-concurrent} permit until it ends.
 */
@ExtendWith(TestCaller.Registered.class)
class RateLimitedAsyncBoundaryTests {

	private static final ThreadLocal<@Nullable String> CALLER = TestCaller.CURRENT;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class))
		.withBean(Service.class)
		.withPropertyValues("resilience.rate-limiters.open.token-bucket.capacity=1000",
				"resilience.rate-limiters.open.token-bucket.refill-tokens=1000",
				"resilience.rate-limiters.open.token-bucket.refill-period=1h",
				"resilience.rate-limiters.two.token-bucket.capacity=2",
				"resilience.rate-limiters.two.token-bucket.refill-tokens=2",
				"resilience.rate-limiters.two.token-bucket.refill-period=1h",
				"resilience.rate-limiters.paced.token-bucket.capacity=1",
				"resilience.rate-limiters.paced.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.paced.token-bucket.refill-period=300ms",
				"resilience.rate-limiters.paced.max-wait=5s", "resilience.rate-limiters.single.max-concurrent=1");

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	@Test
	void monoAdmittedAtOnceHandsTheSubscribersDemandToTheMethodsMono() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			Mono<String> call = service.openMono("a");
			assertThat(service.invocations()).hasValue(0);
			Demanding subscriber = new Demanding();
			call.subscribe(subscriber);
			// Admitted and invoked at subscription; nothing asked of the method's Mono until the
			// subscriber asks: no future stands between them, subscribed on its own.
			assertThat(service.invocations()).hasValue(1);
			assertThat(service.requested()).isEmpty();
			subscriber.request(1);
			assertThat(service.requested()).containsExactly(1L);
			assertThat(subscriber.values).containsExactly("open:a");
			assertThat(subscriber.completed).isTrue();
			StepVerifier.create(call).expectNext("open:a").verifyComplete();
			assertThat(service.invocations()).hasValue(2);
		});
	}

	@Test
	void monoAdmittedAtOnceIsSubscribedWithTheSubscribersContextAndRecordsItsDecision() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			List<RateLimitDecision> recorded = new CopyOnWriteArrayList<>();
			Scheduler subscribing = Schedulers.newSingle("subscribing");
			try {
				Mono<String> call = service.callerMono()
					.contextWrite(Context.of(TestCaller.KEY, "alice", RateLimitDecisionRecorder.class,
							(RateLimitDecisionRecorder) recorded::add))
					.subscribeOn(subscribing);
				StepVerifier.create(call).expectNext("caller:alice").verifyComplete();
				assertThat(recorded).singleElement().satisfies((decision) -> {
					assertThat(decision.isPermitted()).isTrue();
					assertThat(decision.getLimiterName()).isEqualTo("open");
				});
				// The subscribing thread's own thread locals are back once the subscription is made.
				assertThat(Mono.fromCallable(() -> String.valueOf(CALLER.get())).subscribeOn(subscribing).block())
					.isEqualTo("null");
			}
			finally {
				subscribing.dispose();
			}
		});
	}

	@Test
	void monoRejectedAtOnceFailsWithoutInvokingAndDecidesAgainOnEachSubscription() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			Mono<String> call = service.twoMono();
			StepVerifier.create(call).expectNext("two").verifyComplete();
			StepVerifier.create(call).expectNext("two").verifyComplete();
			StepVerifier.create(call.subscribeOn(Schedulers.parallel()))
				.expectError(RateLimitExceededException.class)
				.verify(Duration.ofSeconds(5));
			assertThat(service.invocations()).hasValue(2);
		});
	}

	@Test
	void monoThatHasToWaitIsInvokedOnceItsSlotComesWithTheSubscribersContext() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			StepVerifier.create(service.pacedMono()).expectNext("paced:null").verifyComplete();
			Sinks.One<String> outcome = Sinks.one();
			long start = System.nanoTime();
			service.pacedMono()
				.contextWrite(Context.of(TestCaller.KEY, "bob"))
				.subscribeOn(Schedulers.parallel())
				.subscribe(outcome::tryEmitValue, outcome::tryEmitError);
			assertThat(outcome.asMono().block(Duration.ofSeconds(5))).isEqualTo("paced:bob");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
			assertThat(service.invocations()).hasValue(2);
		});
	}

	@Test
	void monoWithMaxConcurrentHoldsItsPermitUntilItEndsOrIsCancelled() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			Disposable first = service.singleMono().subscribe();
			assertThat(service.pending()).hasSize(1);
			StepVerifier.create(service.singleMono()).expectError(RateLimitExceededException.class).verify();
			service.pending().remove().tryEmitValue("first");
			assertThat(first.isDisposed()).isTrue();
			Disposable second = service.singleMono().subscribe();
			assertThat(service.pending()).hasSize(1);
			second.dispose();
			service.pending().clear();
			StepVerifier.create(service.singleMono())
				.then(() -> service.pending().remove().tryEmitValue("third"))
				.expectNext("third")
				.verifyComplete();
			assertThat(service.invocations()).hasValue(3);
		});
	}

	@Test
	void fluxAdmittedAtOnceHandsTheSubscribersDemandToTheMethodsFlux() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			Demanding subscriber = new Demanding();
			service.openFlux().subscribe(subscriber);
			assertThat(service.requested()).isEmpty();
			subscriber.request(2);
			assertThat(service.requested()).containsExactly(2L);
			assertThat(subscriber.values).containsExactly("x", "y");
			subscriber.request(1);
			assertThat(subscriber.values).containsExactly("x", "y", "z");
			assertThat(subscriber.completed).isTrue();
		});
	}

	@Test
	void fluxRejectedAtOnceFailsWithoutInvoking() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			StepVerifier.create(service.twoMono()).expectNext("two").verifyComplete();
			StepVerifier.create(service.twoFlux()).expectNext("two").verifyComplete();
			StepVerifier.create(service.twoFlux()).expectError(RateLimitExceededException.class).verify();
			assertThat(service.invocations()).hasValue(2);
		});
	}

	@Test
	void fluxWithMaxConcurrentHoldsItsPermitUntilItCompletes() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			Sinks.Many<String> values = Sinks.many().unicast().onBackpressureBuffer();
			service.flux(values.asFlux());
			List<String> received = new CopyOnWriteArrayList<>();
			service.singleFlux().subscribe(received::add);
			StepVerifier.create(service.singleFlux()).expectError(RateLimitExceededException.class).verify();
			values.tryEmitNext("a");
			values.tryEmitComplete();
			assertThat(received).containsExactly("a");
			service.flux(Flux.just("b"));
			StepVerifier.create(service.singleFlux()).expectNext("b").verifyComplete();
		});
	}

	@Test
	void stageAdmittedAtOnceIsTheMethodsOwnOutcomeAndCancelsIt() throws Exception {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			CompletableFuture<String> result = new CompletableFuture<>();
			CompletableFuture<String> returned = service.openStage(result);
			assertThat(service.invocations()).hasValue(1);
			assertThat(returned).isNotDone();
			result.complete("done");
			assertThat(returned.get(5, TimeUnit.SECONDS)).isEqualTo("done");
			CompletableFuture<String> cancelled = new CompletableFuture<>();
			service.openStage(cancelled).cancel(false);
			assertThat(cancelled).isCancelled();
		});
	}

	@Test
	void stageRejectedAtOnceFailsWithoutInvoking() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.twoStage().get(5, TimeUnit.SECONDS)).isEqualTo("two");
			assertThat(service.twoStage().get(5, TimeUnit.SECONDS)).isEqualTo("two");
			assertThat(service.twoStage()).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(RateLimitExceededException.class);
			assertThat(service.invocations()).hasValue(2);
		});
	}

	@Test
	void stageThatHasToWaitIsInvokedOnlyOnceItsSlotComes() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.pacedStage().get(5, TimeUnit.SECONDS)).isEqualTo("paced");
			CompletableFuture<String> waiting = service.pacedStage();
			assertThat(service.invocations()).hasValue(1);
			assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("paced");
			assertThat(service.invocations()).hasValue(2);
		});
	}

	@Test
	void stageWithMaxConcurrentHoldsItsPermitUntilItsStageCompletes() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			CompletableFuture<String> gate = new CompletableFuture<>();
			CompletableFuture<String> first = service.singleStage(gate);
			assertThat(service.singleStage(CompletableFuture.completedFuture("x"))).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(RateLimitExceededException.class);
			gate.complete("first");
			assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("first");
			assertThat(service.singleStage(CompletableFuture.completedFuture("third")).get(5, TimeUnit.SECONDS))
				.isEqualTo("third");
		});
	}

	/** Asks for nothing until told to, and records what it receives. */
	static final class Demanding extends BaseSubscriber<String> {

		final List<String> values = new CopyOnWriteArrayList<>();

		volatile boolean completed;

		@Override
		protected void hookOnSubscribe(Subscription subscription) {
		}

		@Override
		protected void hookOnNext(String value) {
			this.values.add(value);
		}

		@Override
		protected void hookOnComplete() {
			this.completed = true;
		}

	}

	static class Service {

		final AtomicInteger invocations = new AtomicInteger();

		final List<Long> requested = new CopyOnWriteArrayList<>();

		final Queue<Sinks.One<String>> pending = new ConcurrentLinkedQueue<>();

		volatile Flux<String> flux = Flux.empty();

		// Accessors, not fields: the test holds the proxy, whose fields are not the bean's.
		AtomicInteger invocations() {
			return this.invocations;
		}

		List<Long> requested() {
			return this.requested;
		}

		Queue<Sinks.One<String>> pending() {
			return this.pending;
		}

		void flux(Flux<String> flux) {
			this.flux = flux;
		}

		@RateLimited("open")
		public Mono<String> openMono(String value) {
			this.invocations.incrementAndGet();
			return Mono.just("open:" + value).doOnRequest(this.requested::add);
		}

		@RateLimited("open")
		public Mono<String> callerMono() {
			this.invocations.incrementAndGet();
			// Read when subscribed: the subscriber's context is restored as thread locals then.
			return Mono.defer(() -> Mono.just("caller:" + CALLER.get()));
		}

		@RateLimited("open")
		public Flux<String> openFlux() {
			this.invocations.incrementAndGet();
			return Flux.just("x", "y", "z").doOnRequest(this.requested::add);
		}

		@RateLimited("open")
		public CompletableFuture<String> openStage(CompletableFuture<String> result) {
			this.invocations.incrementAndGet();
			return result;
		}

		@RateLimited("two")
		public Mono<String> twoMono() {
			this.invocations.incrementAndGet();
			return Mono.just("two");
		}

		@RateLimited("two")
		public Flux<String> twoFlux() {
			this.invocations.incrementAndGet();
			return Flux.just("two");
		}

		@RateLimited("two")
		public CompletableFuture<String> twoStage() {
			this.invocations.incrementAndGet();
			return CompletableFuture.completedFuture("two");
		}

		@RateLimited("paced")
		public Mono<String> pacedMono() {
			this.invocations.incrementAndGet();
			return Mono.defer(() -> Mono.just("paced:" + CALLER.get()));
		}

		@RateLimited("paced")
		public CompletableFuture<String> pacedStage() {
			this.invocations.incrementAndGet();
			return CompletableFuture.completedFuture("paced");
		}

		@RateLimited("single")
		public Mono<String> singleMono() {
			this.invocations.incrementAndGet();
			Sinks.One<String> outcome = Sinks.one();
			this.pending.add(outcome);
			return outcome.asMono();
		}

		@RateLimited("single")
		public Flux<String> singleFlux() {
			return this.flux;
		}

		@RateLimited("single")
		public CompletableFuture<String> singleStage(CompletableFuture<String> result) {
			return result;
		}

	}

}
