package dev.resilience.autoconfigure;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.OperationTimeoutException;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Several resilience annotations on one method, and the caller's context across them.
 */
class CombinedAnnotationsTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class, PollAutoConfiguration.class,
				ConnectionPoolAutoConfiguration.class))
		.withBean(Service.class)
		.withPropertyValues("resilience.rate-limiters.ten.token-bucket.capacity=10",
				"resilience.rate-limiters.ten.token-bucket.refill-tokens=10",
				"resilience.rate-limiters.ten.token-bucket.refill-period=1h", "resilience.retries.quick.max-retries=2",
				"resilience.retries.quick.delay=5ms", "resilience.retries.quick.jitter=none",
				"resilience.pools.one.max-size=1", "resilience.rate-limiters.paced.token-bucket.capacity=1",
				"resilience.rate-limiters.paced.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.paced.token-bucket.refill-period=100ms",
				"resilience.rate-limiters.paced.max-wait=1s");

	@Test
	void asyncRetryAttemptsSeeTheCallersMdc() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			MDC.put("requestId", "r-7");
			CompletableFuture<String> call;
			try {
				call = service.flakyStageReadingMdc();
			}
			finally {
				MDC.clear();
			}
			assertThat(call.get(5, TimeUnit.SECONDS)).isEqualTo("ok");
			assertThat(service.seen()).containsExactly("r-7", "r-7", "r-7");
		});
	}

	@Test
	void aStageInvokedAfterARateLimitWaitSeesTheCallersMdc() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			MDC.put("requestId", "r-9");
			CompletableFuture<String> first;
			CompletableFuture<String> second;
			try {
				first = service.pacedStage();
				second = service.pacedStage();
			}
			finally {
				MDC.clear();
			}
			assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("r-9");
			assertThat(second.get(5, TimeUnit.SECONDS)).isEqualTo("r-9");
		});
	}

	@Test
	void aRetriedMonoSeesTheSubscribersMdcOnEachAttempt() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			MDC.put("requestId", "r-10");
			try {
				assertThat(service.flakyMonoReadingMdc().block(java.time.Duration.ofSeconds(5))).isEqualTo("ok");
			}
			finally {
				MDC.clear();
			}
			assertThat(service.seen()).containsExactly("r-10", "r-10", "r-10");
		});
	}

	@Test
	void whatAnAttemptPutsInTheMdcOnTheSchedulerDoesNotReachTheNextCall() {
		this.contextRunner
			.withBean("resilienceScheduler", java.util.concurrent.ScheduledExecutorService.class,
					java.util.concurrent.Executors::newSingleThreadScheduledExecutor)
			.run((context) -> {
				Service service = context.getBean(Service.class);
				assertThat(service.leakingStage().get(5, TimeUnit.SECONDS)).isEqualTo("null");
				service.calls().set(0);
				assertThat(service.leakingStage().get(5, TimeUnit.SECONDS)).isEqualTo("null");
				assertThat(service.seen()).containsOnly("null");
			});
	}

	@Test
	void whatPooledWorkPutsInTheMdcDoesNotReachTheNextCallOnThatWorker() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			MDC.put("requestId", "r-11");
			try {
				assertThat(service.pooledLeaking()).isEqualTo("r-11 null");
			}
			finally {
				MDC.clear();
			}
			assertThat(service.pooledLeaking()).isEqualTo("null null");
		});
	}

	@Test
	void aFallbackAfterAStageFailedOnAnotherThreadSeesTheCallersMdc() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			MDC.put("requestId", "r-12");
			CompletableFuture<String> call;
			try {
				call = service.failingElsewhereWithFallback();
			}
			finally {
				MDC.clear();
			}
			assertThat(call.get(5, TimeUnit.SECONDS)).isEqualTo("fallback r-12");
		});
	}

	@Test
	void everyPollAttemptOfAStageAsksTheLimiterAndThePoolAgain() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.polledStage().get(5, TimeUnit.SECONDS)).isEqualTo(3);
			assertThat(context.getBean(RateLimiterRegistry.class).get("ten").inspect("").getRemaining())
				.isEqualTo(7);
			assertThat(context.getBean("one", ConnectionPool.class).getStats().active()).isZero();
		});
	}

	@Test
	void anAccessorRegisteredGloballyAfterStartupTravelsToAsyncAttemptsAndPooledWork() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			// As the starter's own web support registers the request's header items, once its
			// listener is created, which may be after the snapshot factory bean.
			io.micrometer.context.ContextRegistry.getInstance().registerThreadLocalAccessor(new dev.resilience.TestCaller());
			dev.resilience.TestCaller.CURRENT.set("caller-1");
			try {
				assertThat(service.pooledCaller()).isEqualTo("caller-1");
				assertThat(service.flakyStageReadingCaller().get(5, TimeUnit.SECONDS)).isEqualTo("caller-1");
			}
			finally {
				dev.resilience.TestCaller.CURRENT.remove();
				io.micrometer.context.ContextRegistry.getInstance().removeThreadLocalAccessor(dev.resilience.TestCaller.KEY);
			}
		});
	}

	@Test
	void everyRetryAttemptAsksTheLimiterAgain() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.flakyLimitedPooled()).isEqualTo("ok");
			assertThat(service.calls().get()).isEqualTo(3);
			assertThat(context.getBean(RateLimiterRegistry.class).get("ten").inspect("").getRemaining())
				.isEqualTo(7);
		});
	}

	@Test
	void rateLimitOrderedOutsideRetryDecidesOnceForAllAttempts() {
		this.contextRunner.withPropertyValues("resilience.aspect-order.rate-limit=0").run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.flakyLimitedPooled()).isEqualTo("ok");
			assertThat(service.calls().get()).isEqualTo(3);
			assertThat(context.getBean(RateLimiterRegistry.class).get("ten").inspect("").getRemaining())
				.isEqualTo(9);
		});
	}

	@Test
	void operationTimeoutIsRetriedWithAFreshDeadline() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.slowThenFast()).isEqualTo("ok");
			assertThat(service.calls().get()).isEqualTo(2);
		});
	}

	@Test
	void currentOutsideAnAnnotatedMethodIsAnIllegalState() {
		this.contextRunner.run((context) -> {
			ConnectionPool<?> pool = context.getBean("one", ConnectionPool.class);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(pool::current);
		});
	}

	@Test
	void asyncRetryFallbackSeesTheCallersMdc() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			MDC.put("requestId", "r-8");
			CompletableFuture<String> call;
			try {
				call = service.failingStageWithFallback();
			}
			finally {
				MDC.clear();
			}
			assertThat(call.get(5, TimeUnit.SECONDS)).isEqualTo("fallback r-8");
		});
	}

	@Test
	void retriedMonoAsksTheLimiterAndThePoolPerAttempt() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.flakyMono().block(java.time.Duration.ofSeconds(5))).isEqualTo("ok");
			assertThat(service.calls().get()).isEqualTo(3);
			assertThat(context.getBean(RateLimiterRegistry.class).get("ten").inspect("").getRemaining())
				.isEqualTo(7);
			// Each attempt checks out anew, and the method, invoked with the connection as
			// current(), builds its publisher for that connection.
			assertThat(service.invocations().get()).isEqualTo(3);
		});
	}

	@Test
	void retriedStageThroughPoolGetsAFreshDeadlinePerAttempt() {
		this.contextRunner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.slowStageThenFast().get(5, TimeUnit.SECONDS)).isEqualTo("ok");
			assertThat(service.calls().get()).isEqualTo(2);
		});
	}

	static class Service {

		final AtomicInteger invocations = new AtomicInteger();

		AtomicInteger invocations() {
			return this.invocations;
		}

		@Retryable(name = "quick")
		public CompletableFuture<String> leakingStage() {
			String seen = String.valueOf(MDC.get("leak"));
			this.seen.add(seen);
			MDC.put("leak", "x");
			return (this.calls.incrementAndGet() < 2) ? CompletableFuture.failedFuture(new IllegalStateException("down"))
					: CompletableFuture.completedFuture(seen);
		}

		@WithConnection(pool = "one", timeout = "5s")
		public String pooledLeaking() {
			String seen = MDC.get("requestId") + " " + MDC.get("leak");
			MDC.put("leak", "x");
			return seen;
		}

		@dev.resilience.poll.PollUntil(until = "#result >= 3", delay = "1ms")
		@RateLimited("ten")
		@WithConnection(pool = "one", timeout = "1s")
		public CompletableFuture<Integer> polledStage() {
			return CompletableFuture.completedFuture(this.calls.incrementAndGet());
		}

		@WithConnection(pool = "one", timeout = "5s")
		public String pooledCaller() {
			return dev.resilience.TestCaller.CURRENT.get();
		}

		@Retryable(name = "quick")
		public CompletableFuture<String> flakyStageReadingCaller() {
			if (this.calls.incrementAndGet() < 3) {
				return CompletableFuture.failedFuture(new IllegalStateException("down"));
			}
			return CompletableFuture.completedFuture(dev.resilience.TestCaller.CURRENT.get());
		}

		@RateLimited("paced")
		public CompletableFuture<String> pacedStage() {
			return CompletableFuture.completedFuture(String.valueOf(MDC.get("requestId")));
		}

		@Retryable(name = "quick")
		public reactor.core.publisher.Mono<String> flakyMonoReadingMdc() {
			return reactor.core.publisher.Mono.defer(() -> {
				this.seen.add(String.valueOf(MDC.get("requestId")));
				return (this.calls.incrementAndGet() < 3)
						? reactor.core.publisher.Mono.error(new IllegalStateException("down"))
						: reactor.core.publisher.Mono.just("ok");
			});
		}

		@Retryable(name = "quick")
		@RateLimited("ten")
		@WithConnection(pool = "one", timeout = "5s")
		public reactor.core.publisher.Mono<String> flakyMono() {
			this.invocations.incrementAndGet();
			return reactor.core.publisher.Mono.defer(() -> (this.calls.incrementAndGet() < 3)
					? reactor.core.publisher.Mono.error(new IllegalStateException("down"))
					: reactor.core.publisher.Mono.just("ok"));
		}

		@Retryable(name = "quick", retryOn = OperationTimeoutException.class)
		@WithConnection(pool = "one", timeout = "200ms")
		public CompletableFuture<String> slowStageThenFast() {
			return (this.calls.incrementAndGet() == 1) ? new CompletableFuture<>()
					: CompletableFuture.completedFuture("ok");
		}

		final AtomicInteger calls = new AtomicInteger();

		final List<String> seen = new CopyOnWriteArrayList<>();

		AtomicInteger calls() {
			return this.calls;
		}

		List<String> seen() {
			return this.seen;
		}

		@Retryable(name = "quick", retryOn = IOException.class)
		public CompletableFuture<String> flakyStageReadingMdc() {
			this.seen.add(String.valueOf(MDC.get("requestId")));
			if (this.calls.incrementAndGet() < 3) {
				return CompletableFuture.failedFuture(new IOException("down"));
			}
			return CompletableFuture.completedFuture("ok");
		}

		@Retryable(name = "quick", retryOn = IOException.class, fallbackMethod = "fallback")
		public CompletableFuture<String> failingStageWithFallback() {
			return CompletableFuture.failedFuture(new IOException("down"));
		}

		@Retryable(name = "quick", retryOn = IOException.class, fallbackMethod = "fallback")
		public CompletableFuture<String> failingElsewhereWithFallback() {
			return CompletableFuture.<String>supplyAsync(() -> {
				throw new java.io.UncheckedIOException(new IOException("down"));
			}, CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)).exceptionallyCompose((ex) -> {
				CompletableFuture<String> failed = new CompletableFuture<>();
				failed.completeExceptionally(new IOException("down"));
				return failed;
			});
		}

		CompletableFuture<String> fallback(IOException ex) {
			return CompletableFuture.completedFuture("fallback " + MDC.get("requestId"));
		}

		@Retryable(name = "quick")
		@RateLimited("ten")
		@WithConnection(pool = "one", timeout = "5s")
		public String flakyLimitedPooled() {
			if (this.calls.incrementAndGet() < 3) {
				throw new IllegalStateException("down");
			}
			return "ok";
		}

		@Retryable(name = "quick", retryOn = OperationTimeoutException.class)
		@WithConnection(pool = "one", timeout = "200ms")
		public String slowThenFast() throws InterruptedException {
			if (this.calls.incrementAndGet() == 1) {
				Thread.sleep(10_000);
			}
			return "ok";
		}

	}

}
