package dev.resilience.autoconfigure;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.autoconfigure.support.ContinuationScheduler;
import dev.resilience.poll.PollExhaustedException;
import dev.resilience.poll.PollUntil;
import dev.resilience.pool.CheckoutTimeoutException;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.OperationTimeoutException;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.RetriesExhaustedException;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * The four annotations on {@code CompletableFuture}, {@code Mono} and {@code Flux} methods of real
 * proxied beans, in real time with short delays (the exact arithmetic is tested in each core
 * package): when the method runs, how the outcome arrives, what is held until when, and that no
 * thread is blocked (reactive calls run on Reactor's parallel threads with BlockHound installed).
 */
class AsyncAnnotationsTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class, PollAutoConfiguration.class,
				ConnectionPoolAutoConfiguration.class))
		.withBean(AsyncService.class)
		.withPropertyValues("resilience.rate-limiters.three.token-bucket.capacity=3",
				"resilience.rate-limiters.three.token-bucket.refill-tokens=3",
				"resilience.rate-limiters.three.token-bucket.refill-period=1h",
				"resilience.rate-limiters.single.max-concurrent=1",
				"resilience.rate-limiters.paced.token-bucket.capacity=1",
				"resilience.rate-limiters.paced.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.paced.token-bucket.refill-period=1s",
				"resilience.rate-limiters.paced.max-wait=3s", "resilience.rate-limiters.crowd.max-concurrent=2",
				"resilience.rate-limiters.crowd.max-wait=50ms", "resilience.retries.partner.max-retries=2",
				"resilience.retries.partner.delay=10ms", "resilience.retries.partner.jitter=none",
				"resilience.retries.partner.retry-on=java.io.IOException", "resilience.retries.slow.max-retries=1",
				"resilience.retries.slow.delay=1s", "resilience.retries.slow.jitter=none",
				"resilience.polls.status.delay=5ms", "resilience.polls.status.max-attempts=5",
				"resilience.polls.hourly.delay=1h", "resilience.polls.hourly.max-delay=1h",
				"resilience.polls.hourly.max-attempts=2",
				"resilience.pools.narrow.max-size=1", "resilience.pools.pair.max-size=2");

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	@Test
	void retryInvokesAStageMethodAgainAfterItsStageFails() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThat(service.flakyStage(2).get(5, TimeUnit.SECONDS)).isEqualTo("ok after 3");
			assertThat(service.calls().get()).isEqualTo(3);
		});
	}

	@Test
	void retryReturnsBeforeTheFirstDelay() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			long start = System.nanoTime();
			CompletableFuture<String> returned = service.slowStage();
			long took = System.nanoTime() - start;
			assertThat(Duration.ofNanos(took)).isLessThan(Duration.ofSeconds(1));
			assertThat(returned).isNotDone();
			assertThat(service.calls().get()).isEqualTo(1);
			assertThat(returned.get(5, TimeUnit.SECONDS)).isEqualTo("ok after 2");
		});
	}

	@Test
	void exhaustedRetriesFailTheStageWithTheLastFailureAndItsHistory() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> service.flakyStage(10).get(5, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(IOException.class)
				.withMessage("down 3")
				.satisfies((failure) -> assertThat(RetriesExhaustedException.of(failure).getMessage())
					.startsWith("Tried 3 times over "));
		});
	}

	@Test
	void retrySubscribesToAMonoAgainWithoutBlocking() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			Mono<String> call = service.flakyMono(2);
			assertThat(service.calls().get()).isZero();
			StepVerifier.create(call.subscribeOn(Schedulers.parallel())).expectNext("ok after 3").verifyComplete();
			assertThat(service.calls().get()).isEqualTo(3);
			// The publisher the method returned is subscribed to again: the method ran once.
			assertThat(service.invocations().get()).isOne();
		});
	}

	@Test
	void retrySubscribesToAFluxAgain() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			StepVerifier.create(service.flakyFlux(1).subscribeOn(Schedulers.parallel()))
				.expectNext("a", "b")
				.verifyComplete();
			assertThat(service.calls().get()).isEqualTo(2);
		});
	}

	@Test
	void retryWaitingForItsDelayFailsWhenTheSchedulerIsShutDown() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> waiting = service.slowStage();
			assertThat(waiting).isNotDone();
			// As closing the context does: the delay's task is dropped, and the call told.
			context.getBean(ContinuationScheduler.BEAN_NAME, ScheduledExecutorService.class).shutdownNow();
			assertThat(waiting).isCompletedExceptionally();
			Throwable failure = catchThrowableOfType(ExecutionException.class, waiting::get).getCause();
			assertThat(failure).isInstanceOf(IOException.class).hasMessage("down");
			assertThat(RetriesExhaustedException.of(failure).getMessage()).startsWith("Tried 1 time over ")
				.endsWith("; stopped because the scheduler refused the next attempt (resilienceScheduler was shut down)");
			assertThat(service.calls().get()).isOne();
		});
	}

	@Test
	void retryStartedAfterTheSchedulerIsShutDownFails() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			context.getBean(ContinuationScheduler.BEAN_NAME, ScheduledExecutorService.class).shutdownNow();
			assertThat(service.slowStage()).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(IOException.class);
			StepVerifier.create(service.slowMono()).verifyError(IOException.class);
		});
	}

	@Test
	void retryOfAMonoWaitingForItsDelayFailsWhenTheSchedulerIsShutDown() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			StepVerifier.create(service.slowMono())
				.then(() -> context.getBean(ContinuationScheduler.BEAN_NAME, ScheduledExecutorService.class)
					.shutdownNow())
				.expectErrorSatisfies((failure) -> assertThat(RetriesExhaustedException.of(failure).getMessage())
					.endsWith("(resilienceScheduler was shut down)"))
				.verify(Duration.ofSeconds(5));
			assertThat(service.calls().get()).isOne();
		});
	}

	@Test
	void waitForASlotFailsWhenTheSchedulerIsShutDown() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThat(service.pacedStage().get(5, TimeUnit.SECONDS)).isEqualTo("paced");
			CompletableFuture<String> waiting = service.pacedStage();
			assertThat(waiting).isNotDone();
			context.getBean(ContinuationScheduler.BEAN_NAME, ScheduledExecutorService.class).shutdownNow();
			assertThat(waiting).isCompletedExceptionally();
			assertThat(catchThrowableOfType(ExecutionException.class, waiting::get).getCause())
				.isInstanceOf(RejectedExecutionException.class)
				.hasMessage("resilienceScheduler was shut down");
		});
	}

	@Test
	void pollWaitingForItsDelayFailsWhenTheSchedulerIsShutDown() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<Integer> waiting = service.hourlyStage();
			assertThat(waiting).isNotDone();
			context.getBean(ContinuationScheduler.BEAN_NAME, ScheduledExecutorService.class).shutdownNow();
			assertThat(waiting).isCompletedExceptionally();
			assertThat(catchThrowableOfType(ExecutionException.class, waiting::get).getCause())
				.isInstanceOf(RejectedExecutionException.class)
				.hasMessage("Poll 'hourly' stopped after 1 attempt: its scheduler refused the next one "
						+ "(resilienceScheduler was shut down)");
		});
	}

	@Test
	void pollOfAMonoCancelsAnAttemptStillRunningAtTheTimeout() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			AtomicInteger cancelled = new AtomicInteger();
			StepVerifier.create(service.hangingMono(cancelled).subscribeOn(Schedulers.parallel()))
				.expectErrorSatisfies((failure) -> assertThat(failure).isInstanceOf(PollExhaustedException.class)
					.hasMessage("Tried 1 time over 0ms, but condition was never met within the timeout of 200ms"))
				.verify(Duration.ofSeconds(5));
			assertThat(cancelled).hasValue(1);
		});
	}

	@Test
	void monoAssembledFiveTimesOnALimitOfThreeAdmitsThreeSubscriptions() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			List<Mono<String>> assembled = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				assembled.add(service.limitedMono(i));
			}
			int admitted = 0;
			int rejected = 0;
			for (Mono<String> mono : assembled) {
				try {
					mono.subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(5));
					admitted++;
				}
				catch (RateLimitExceededException ex) {
					rejected++;
				}
			}
			assertThat(admitted).isEqualTo(3);
			assertThat(rejected).isEqualTo(2);
		});
	}

	@Test
	void concurrencyPermitIsHeldUntilTheStageCompletes() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> gate = new CompletableFuture<>();
			CompletableFuture<String> first = service.singleStage(gate);
			assertThat(first).isNotDone();
			CompletableFuture<String> second = service.singleStage(CompletableFuture.completedFuture("x"));
			assertThat(second).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(RateLimitExceededException.class);
			gate.complete("first");
			assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("first");
			assertThat(service.singleStage(CompletableFuture.completedFuture("third")).get(5, TimeUnit.SECONDS))
				.isEqualTo("third");
		});
	}

	@Test
	void aRateLimitedStageFailedWithAnExecutionExceptionFailsWithIt() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			ExecutionException failure = new ExecutionException(new IOException("inside"));
			// Only the CompletionException a dependent stage adds is taken off: this one is the method's.
			assertThat(service.singleStage(CompletableFuture.failedFuture(failure))).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isSameAs(failure);
		});
	}

	@Test
	void waitForASlotIsScheduledNotSlept() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThat(service.pacedStage().get(5, TimeUnit.SECONDS)).isEqualTo("paced");
			long start = System.nanoTime();
			CompletableFuture<String> waiting = service.pacedStage();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
			assertThat(waiting).isNotDone();
			assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("paced");
			// The slot came a second after the first call, which was less than half a second before.
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
		});
	}

	@Test
	void pendingStagePastTheDeadlineFailsAndNothingStaysBorrowed() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			CompletableFuture<String> hanging = new CompletableFuture<>();
			CompletableFuture<String> returned = service.narrowStage(hanging);
			assertThat(returned).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(OperationTimeoutException.class);
			assertThat(hanging).isCancelled();
			ConnectionPool<?> pool = context.getBean("narrow", ConnectionPool.class);
			// The timed-out connection is invalidated on the pool's own thread.
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(pool.getStats().active()).isZero());
			assertThat(service.narrowStage(CompletableFuture.completedFuture("next")).get(5, TimeUnit.SECONDS))
				.isEqualTo("next");
		});
	}

	@Test
	void pooledFluxHoldsItsConnectionUntilItCompletes() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			ConnectionPool<?> pool = context.getBean("narrow", ConnectionPool.class);
			StepVerifier.create(service.narrowFlux())
				.expectNext(1)
				.then(() -> assertThat(pool.getStats().active()).isOne())
				.expectNext(2)
				.verifyComplete();
			// A Flux ends before the pool's own thread has given its connection back (docs/async-and-reactive.md).
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(pool.getStats().active()).isZero());
		});
	}

	@Test
	void pollInvokesAStageMethodUntilTheConditionHolds() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			assertThat(service.countStage(3).get(5, TimeUnit.SECONDS)).isEqualTo(3);
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> service.countStage(100).get(5, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(PollExhaustedException.class)
				.withMessageStartingWith("Tried 5 times over ");
		});
	}

	@Test
	void pollSubscribesToAMonoAgain() {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			StepVerifier.create(service.countMono(2).subscribeOn(Schedulers.parallel()))
				.expectNext(2)
				.verifyComplete();
		});
	}

	@Test
	void pollUntilOnAFluxStopsStartup() {
		this.contextRunner.withBean(PolledFlux.class)
			.run((context) -> assertThat(Failures.messages(context.getStartupFailure()))
				.anySatisfy((message) -> assertThat(message).contains("PolledFlux.values()").contains("Flux")));
	}

	@Test
	void retryIfResultOnAFluxStopsStartup() {
		this.contextRunner.withBean(RetriedFlux.class)
			.run((context) -> assertThat(Failures.messages(context.getStartupFailure()))
				.anySatisfy((message) -> assertThat(message).contains("RetriedFlux.values()")
					.contains("retryIfResult")
					.contains("Flux")));
	}

	@Test
	void disposedSubscriptionsGiveBackEverythingUnderSixteenThreads() throws Exception {
		this.contextRunner.run((context) -> {
			AsyncService service = context.getBean(AsyncService.class);
			ConnectionPool<?> pool = context.getBean("pair", ConnectionPool.class);
			int threads = 16;
			int callsPerThread = 25;
			ExecutorService executor = Executors.newFixedThreadPool(threads);
			CountDownLatch done = new CountDownLatch(threads);
			AtomicInteger admittedOrRejected = new AtomicInteger();
			// Asserted here, not on the executor's threads, where a failed assertion would only end the thread.
			Queue<String> unended = new ConcurrentLinkedQueue<>();
			for (int t = 0; t < threads; t++) {
				executor.execute(() -> {
					try {
						for (int i = 0; i < callsPerThread; i++) {
							CountDownLatch finished = new CountDownLatch(1);
							Disposable subscription = service.crowdMono()
								.doFinally((signal) -> finished.countDown())
								.subscribe((value) -> admittedOrRejected.incrementAndGet(), (failure) -> {
									if (failure instanceof RateLimitExceededException
											|| failure instanceof CheckoutTimeoutException) {
										admittedOrRejected.incrementAndGet();
									}
								});
							if (ThreadLocalRandom.current().nextBoolean()) {
								subscription.dispose();
							}
							if (!finished.await(5, TimeUnit.SECONDS)) {
								unended.add("A call " + (subscription.isDisposed() ? "disposed" : "not disposed")
										+ " neither ended nor was cancelled within 5 s; the threads then:\n" + threadDump());
							}
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
					finally {
						done.countDown();
					}
				});
			}
			assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
			assertThat(unended).isEmpty();
			executor.shutdown();
			// Every permit and connection is back: both permits of "crowd" and both connections of
			// "pair" can be taken at once again.
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(pool.getStats().active()).isZero());
			CompletableFuture<String> gateA = new CompletableFuture<>();
			CompletableFuture<String> gateB = new CompletableFuture<>();
			CompletableFuture<String> a = service.crowdStage(gateA);
			CompletableFuture<String> b = service.crowdStage(gateB);
			assertThat(a).isNotDone();
			assertThat(b).isNotDone();
			gateA.complete("a");
			gateB.complete("b");
			assertThat(a.get(5, TimeUnit.SECONDS)).isEqualTo("a");
			assertThat(b.get(5, TimeUnit.SECONDS)).isEqualTo("b");
			assertThat(admittedOrRejected.get()).isLessThanOrEqualTo(threads * callsPerThread);
		});
	}

	private static String threadDump() {
		StringBuilder dump = new StringBuilder();
		for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
			dump.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState());
			dump.append((thread.getLockName() != null) ? " on " + thread.getLockName() : "").append('\n');
			for (StackTraceElement frame : thread.getStackTrace()) {
				dump.append("\tat ").append(frame).append('\n');
			}
		}
		return dump.toString();
	}

	static class AsyncService {

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicInteger counter = new AtomicInteger();

		private final AtomicInteger invocations = new AtomicInteger();

		AtomicInteger calls() {
			return this.calls;
		}

		AtomicInteger invocations() {
			return this.invocations;
		}

		@Retryable(name = "partner")
		public CompletableFuture<String> flakyStage(int failures) {
			int call = this.calls.incrementAndGet();
			return (call <= failures) ? CompletableFuture.failedFuture(new IOException("down " + call))
					: CompletableFuture.completedFuture("ok after " + call);
		}

		@Retryable(name = "slow")
		public CompletableFuture<String> slowStage() {
			int call = this.calls.incrementAndGet();
			return (call == 1) ? CompletableFuture.failedFuture(new IOException("down"))
					: CompletableFuture.completedFuture("ok after " + call);
		}

		@Retryable(name = "slow")
		public Mono<String> slowMono() {
			return Mono.defer(() -> {
				this.calls.incrementAndGet();
				return Mono.error(new IOException("down"));
			});
		}

		@PollUntil(name = "hourly", until = "#result >= 100")
		public CompletableFuture<Integer> hourlyStage() {
			return CompletableFuture.completedFuture(this.counter.incrementAndGet());
		}

		@PollUntil(timeout = "200ms")
		public Mono<Integer> hangingMono(AtomicInteger cancelled) {
			return Mono.<Integer>never().doOnCancel(cancelled::incrementAndGet);
		}

		@Retryable(name = "partner")
		public Mono<String> flakyMono(int failures) {
			this.invocations.incrementAndGet();
			return Mono.defer(() -> {
				int call = this.calls.incrementAndGet();
				return (call <= failures) ? Mono.error(new IOException("down " + call)) : Mono.just("ok after " + call);
			});
		}

		@Retryable(name = "partner")
		public Flux<String> flakyFlux(int failures) {
			return Flux.defer(() -> {
				int call = this.calls.incrementAndGet();
				return (call <= failures) ? Flux.error(new IOException("down " + call)) : Flux.just("a", "b");
			});
		}

		@RateLimited(name = "three")
		public Mono<String> limitedMono(int i) {
			return Mono.just("call " + i);
		}

		@RateLimited(name = "single")
		public CompletableFuture<String> singleStage(CompletableFuture<String> result) {
			return result;
		}

		@RateLimited(name = "paced")
		public CompletableFuture<String> pacedStage() {
			return CompletableFuture.completedFuture("paced");
		}

		@WithConnection(pool = "narrow", timeout = "1s")
		public CompletableFuture<String> narrowStage(CompletableFuture<String> result) {
			return result;
		}

		@WithConnection(pool = "narrow", timeout = "5s")
		public Flux<Integer> narrowFlux() {
			return Flux.just(1, 2).delayElements(Duration.ofMillis(20));
		}

		@PollUntil(name = "status", until = "#result >= #target")
		public CompletableFuture<Integer> countStage(int target) {
			return CompletableFuture.completedFuture(this.counter.incrementAndGet());
		}

		@PollUntil(name = "status", until = "#result >= #target")
		public Mono<Integer> countMono(int target) {
			return Mono.fromSupplier(() -> Math.min(target, this.counter.incrementAndGet()));
		}

		@RateLimited(name = "crowd")
		@WithConnection(pool = "pair", timeout = "50ms")
		public Mono<String> crowdMono() {
			return Mono.just("ok").delayElement(Duration.ofMillis(ThreadLocalRandom.current().nextInt(5)));
		}

		@RateLimited(name = "crowd")
		@WithConnection(pool = "pair", timeout = "5s")
		public CompletableFuture<String> crowdStage(CompletableFuture<String> result) {
			return result;
		}

	}

	static class PolledFlux {

		@PollUntil
		public Flux<String> values() {
			return Flux.just("x");
		}

	}

	static class RetriedFlux {

		@Retryable(retryIfResult = "#result == null")
		public Flux<String> values() {
			return Flux.just("x");
		}

	}

}
