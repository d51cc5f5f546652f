package dev.resilience.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolMetricsAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.observation.DefaultResilienceObservationConvention;
import dev.resilience.observation.ResilienceObservationContext;
import dev.resilience.observation.ResilienceObservationConvention;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.poll.PollUntil;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's {@link ObservationRegistry} reaches every capability: the annotated methods'
 * waits, retries, polls and pooled calls are observed, those returning a {@code Mono} as children
 * of the subscriber's observation and those returning a stage as children of the caller's.
 */
class ObservationAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class, PollAutoConfiguration.class,
				ConnectionPoolAutoConfiguration.class))
		.withBean(ObservedService.class)
		.withPropertyValues("resilience.rate-limiters.paced.token-bucket.capacity=1",
				"resilience.rate-limiters.paced.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.paced.token-bucket.refill-period=1s",
				"resilience.rate-limiters.paced.max-wait=3s", "resilience.retries.partner.max-retries=2",
				"resilience.retries.partner.delay=10ms", "resilience.retries.partner.jitter=none",
				"resilience.polls.status.delay=5ms", "resilience.pools.narrow.max-size=1");

	@Test
	void runWithoutAnObservationRegistryShouldObserveNothing() {
		this.contextRunner.run((context) -> assertThat(context.getBean(ResilienceObservations.class))
			.isSameAs(ResilienceObservations.none()));
	}

	@Test
	void runWithAnObservationRegistryShouldObserveEachCapability() {
		this.contextRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
			ObservedService service = context.getBean(ObservedService.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);

			service.paced();
			assertThat(registry).doesNotHaveAnyObservation();
			service.paced();
			assertThat(service.flaky(new AtomicInteger())).isEqualTo("ok after 3");
			assertThat(service.status(new AtomicInteger())).isEqualTo(3);
			assertThat(service.pooled()).isEqualTo("pooled");

			assertThat(registry).hasNumberOfObservationsEqualTo(5)
				.hasObservationWithNameEqualTo("resilience.ratelimiter.wait")
				.that()
				.hasLowCardinalityKeyValue("name", "paced")
				.hasLowCardinalityKeyValue("outcome", "waited")
				.backToTestObservationRegistry()
				.hasObservationWithNameEqualTo("resilience.retry")
				.that()
				.hasLowCardinalityKeyValue("name", "partner")
				.hasHighCardinalityKeyValue("attempt", "3")
				.hasEvent("resilience.retry.attempt", "attempt 2 failed after a delay of 10 ms")
				.backToTestObservationRegistry()
				.hasObservationWithNameEqualTo("resilience.poll")
				.that()
				.hasLowCardinalityKeyValue("name", "status")
				.hasLowCardinalityKeyValue("outcome", "fulfilled")
				.backToTestObservationRegistry()
				.hasObservationWithNameEqualTo("resilience.pool.checkout")
				.that()
				.hasLowCardinalityKeyValue("pool", "narrow")
				.backToTestObservationRegistry()
				.hasObservationWithNameEqualTo("resilience.pool.operation")
				.that()
				.hasLowCardinalityKeyValue("outcome", "success");
		});
	}

	@Test
	void aMonosWaitAndRetryAreChildrenOfTheSubscribersObservation() {
		this.contextRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
			ObservedService service = context.getBean(ObservedService.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			service.paced();
			Observation request = Observation.start("request", registry);

			String result = service.pacedAndFlakyMono(new AtomicInteger())
				.subscribeOn(Schedulers.parallel())
				.contextWrite((reactorContext) -> reactorContext.put(ObservationThreadLocalAccessor.KEY, request))
				.block(Duration.ofSeconds(5));
			request.stop();

			assertThat(result).isEqualTo("ok after 2");
			assertThat(registry)
				.forAllObservationsWithNameEqualTo("resilience.ratelimiter.wait",
						(observation) -> observation.hasParentObservationEqualTo(request))
				.forAllObservationsWithNameEqualTo("resilience.retry",
						(observation) -> observation.hasParentObservationEqualTo(request))
				// @Retryable runs outside @RateLimited: each attempt waits for a slot of its own.
				.hasNumberOfObservationsWithNameEqualTo("resilience.ratelimiter.wait", 2)
				.hasNumberOfObservationsWithNameEqualTo("resilience.retry", 1);
		});
	}

	@Test
	void aPooledFluxsCheckoutIsAChildOfTheSubscribersObservation() {
		this.contextRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
			ObservedService service = context.getBean(ObservedService.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			Observation request = Observation.start("request", registry);

			java.util.List<String> result = service.pooledFlux()
				.subscribeOn(Schedulers.parallel())
				.contextWrite((reactorContext) -> reactorContext.put(ObservationThreadLocalAccessor.KEY, request))
				.collectList()
				.block(Duration.ofSeconds(5));
			request.stop();

			assertThat(result).containsExactly("a", "b");
			assertThat(registry).hasObservationWithNameEqualTo("resilience.pool.checkout")
				.that()
				.hasParentObservationEqualTo(request);
		});
	}

	@Test
	void aFluxsRetryIsAChildOfTheSubscribersObservation() {
		this.contextRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
			ObservedService service = context.getBean(ObservedService.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			Observation request = Observation.start("request", registry);

			java.util.List<String> result = service.flakyFlux(new AtomicInteger())
				.subscribeOn(Schedulers.parallel())
				.contextWrite((reactorContext) -> reactorContext.put(ObservationThreadLocalAccessor.KEY, request))
				.collectList()
				.block(Duration.ofSeconds(5));
			request.stop();

			assertThat(result).containsExactly("ok");
			assertThat(registry).hasObservationWithNameEqualTo("resilience.retry")
				.that()
				.hasParentObservationEqualTo(request);
		});
	}

	@Test
	void aPooledMonosCheckoutIsAChildOfTheSubscribersObservation() {
		this.contextRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
			ObservedService service = context.getBean(ObservedService.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			Observation request = Observation.start("request", registry);

			String result = service.pooledMono()
				.subscribeOn(Schedulers.parallel())
				.contextWrite((reactorContext) -> reactorContext.put(ObservationThreadLocalAccessor.KEY, request))
				.block(Duration.ofSeconds(5));
			request.stop();

			assertThat(result).isEqualTo("pooled");
			assertThat(registry).hasObservationWithNameEqualTo("resilience.pool.checkout")
				.that()
				.hasParentObservationEqualTo(request);
		});
	}

	@Test
	void aStagesRetryIsAChildOfTheCallersObservation() {
		this.contextRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
			ObservedService service = context.getBean(ObservedService.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			Observation caller = Observation.start("caller", registry);

			CompletableFuture<String> stage;
			try (Observation.Scope scope = caller.openScope()) {
				stage = service.flakyStage(new AtomicInteger());
			}

			assertThat(stage.get(5, TimeUnit.SECONDS)).isEqualTo("ok after 2");
			caller.stop();
			assertThat(registry).hasObservationWithNameEqualTo("resilience.retry")
				.that()
				.hasParentObservationEqualTo(caller)
				.hasLowCardinalityKeyValue("kind", "successful_with_retry")
				.hasBeenStopped();
		});
	}

	@Test
	void runWithAConventionBeanShouldNameTheObservationsByIt() {
		this.contextRunner.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withBean(ResilienceObservationConvention.class, ShortNames::new)
			.run((context) -> {
				ObservedService service = context.getBean(ObservedService.class);
				service.flaky(new AtomicInteger());
				assertThat(context.getBean(TestObservationRegistry.class)).hasSingleObservationThat()
					.hasNameEqualTo("resilience.retry")
					.hasContextualNameEqualTo("retry partner");
			});
	}

	@Test
	void runWithBootsObservationAndMetricsShouldCountEachPooledCallOnce() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
					ObservationAutoConfiguration.class, AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
					ConnectionPoolAutoConfiguration.class, ConnectionPoolMetricsAutoConfiguration.class))
			.withBean(ObservedService.class)
			.withPropertyValues("resilience.pools.narrow.max-size=1")
			.run((context) -> {
				assertThat(context.getBean(ResilienceObservations.class).isNoop()).isFalse();
				context.getBean(ObservedService.class).pooled();

				// The starter's timer alone: Boot's meter handler makes none of the observation.
				assertThat(context.getBean(MeterRegistry.class).find("resilience.pool.operation").timers())
					.singleElement()
					.satisfies((timer) -> assertThat(timer.count()).isOne());
			});
	}

	/** A convention of one's own: shorter span names. */
	static class ShortNames extends DefaultResilienceObservationConvention {

		@Override
		public String getContextualName(ResilienceObservationContext context) {
			return "retry " + context.getResilienceName();
		}

	}

	static class ObservedService {

		@RateLimited("paced")
		public void paced() {
		}

		@Retryable("partner")
		public String flaky(AtomicInteger calls) throws IOException {
			if (calls.incrementAndGet() < 3) {
				throw new IOException("down");
			}
			return "ok after " + calls.get();
		}

		@Retryable("partner")
		public CompletableFuture<String> flakyStage(AtomicInteger calls) {
			return (calls.incrementAndGet() < 2) ? CompletableFuture.failedFuture(new IOException("down"))
					: CompletableFuture.completedFuture("ok after " + calls.get());
		}

		@RateLimited("paced")
		@Retryable("partner")
		public Mono<String> pacedAndFlakyMono(AtomicInteger calls) {
			return Mono.defer(() -> (calls.incrementAndGet() < 2) ? Mono.error(new IOException("down"))
					: Mono.just("ok after " + calls.get()));
		}

		@PollUntil(name = "status", until = "#result >= 3")
		public int status(AtomicInteger calls) {
			return calls.incrementAndGet();
		}

		@WithConnection(pool = "narrow", timeout = "1s")
		public reactor.core.publisher.Flux<String> pooledFlux() {
			return reactor.core.publisher.Flux.just("a", "b");
		}

		@Retryable("partner")
		public reactor.core.publisher.Flux<String> flakyFlux(AtomicInteger calls) {
			return reactor.core.publisher.Flux.defer(() -> (calls.incrementAndGet() < 2)
					? reactor.core.publisher.Flux.error(new IOException("down"))
					: reactor.core.publisher.Flux.just("ok"));
		}

		@WithConnection(pool = "narrow", timeout = "1s")
		public Mono<String> pooledMono() {
			return Mono.just("pooled");
		}

		@WithConnection(pool = "narrow", timeout = "1s")
		public String pooled() {
			return "pooled";
		}

	}

}
