package dev.resilience.autoconfigure;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;

import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolMetricsAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.poll.PollUntil;
import dev.resilience.pool.CheckoutTimeoutException;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.WithConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @WithConnection} with other annotations and pools: deadlines per poll attempt, meters'
 * outcomes in both forms, checked exceptions and interface annotations through a JDK proxy.
 */
class PooledMethodsCombinedTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class, PollAutoConfiguration.class,
				ConnectionPoolAutoConfiguration.class, ConnectionPoolMetricsAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(Inner.class)
		.withBean(Api.class, ApiImpl::new)
		.withBean(TypeApi.class, TypeApiImpl::new)
		.withPropertyValues("resilience.pools.two.max-size=1",
				"resilience.rate-limiters.conc.max-concurrent=5", "resilience.retries.r.max-retries=2",
				"resilience.retries.r.delay=5ms");

	@Test
	void eachPollAttemptGetsItsOwnDeadline() {
		this.contextRunner.run((context) -> {
			Inner inner = context.getBean(Inner.class);
			assertThat(inner.slowPolled()).isEqualTo(3);
		});
	}

	@Test
	void operationMeterOutcomes() {
		this.contextRunner.run((context) -> {
			Inner inner = context.getBean(Inner.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(inner::fails);
			assertThat(meters.get("resilience.pool.operation").tag("pool", "two").tag("outcome", "error").timer().count())
				.isOne();
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> inner.failsLater().get(5, TimeUnit.SECONDS));
			assertThat(meters.get("resilience.pool.operation").tag("pool", "two").tag("outcome", "error").timer().count())
				.isEqualTo(2);
			assertThat(meters.get("resilience.pool.checkout").tag("pool", "two").tag("outcome", "acquired").timer().count())
				.isEqualTo(2);
			assertThat(meters.get("resilience.pool.active").tag("pool", "two").gauge().value()).isZero();
		});
	}

	@Test
	void interfaceAnnotationThroughJdkProxy() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false").run((context) -> {
			Api api = context.getBean(Api.class);
			assertThat(api.work()).isEqualTo("pooled");
		});
	}

	@Test
	void checkedExceptionsAndAsyncTimeoutsAreTaggedAndPassedOn() {
		this.contextRunner.run((context) -> {
			Inner inner = context.getBean(Inner.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThatExceptionOfType(java.io.IOException.class).isThrownBy(inner::checked);
			ConnectionPool<Object> two = context.getBean("two", ConnectionPool.class);
			assertThatExceptionOfType(java.io.IOException.class).isThrownBy(() -> two.withConnection(
					java.time.Duration.ofSeconds(1), (connection) -> {
						throw new java.io.IOException("checked");
					}));
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> inner.never().get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(dev.resilience.pool.OperationTimeoutException.class);
			assertThat(meters.get("resilience.pool.operation").tag("pool", "two").tag("outcome", "timeout").timer().count())
				.isOne();
			// holds the only connection for longer than the next call waits for one; the checkout
			// is asynchronous, so wait for it, or the next call could take the connection first
			CompletableFuture<String> holding = inner.neverLong();
			org.awaitility.Awaitility.await().until(() -> two.getStats().active() == 1);
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> inner.never().get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(CheckoutTimeoutException.class);
			assertThat(meters.get("resilience.pool.checkout").tag("pool", "two").tag("outcome", "timeout").timer().count())
				.isOne();
			holding.cancel(true);
		});
	}

	@Test
	void interfaceAnnotationThroughCglibProxy() {
		this.contextRunner.run((context) -> {
			Api api = context.getBean(Api.class);
			assertThat(api.work()).isEqualTo("pooled");
			assertThat(context.getBean(TypeApi.class).work()).isEqualTo("pooled");
		});
	}

	@Test
	void typeLevelInterfaceAnnotationThroughJdkProxy() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false").run((context) -> {
			assertThat(context.getBean(TypeApi.class).work()).isEqualTo("pooled");
		});
	}

	@Test
	void gaugesCountAsyncCheckoutsWaitingAndHeld() {
		this.contextRunner.run((context) -> {
			Inner inner = context.getBean(Inner.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			CompletableFuture<String> holding = inner.neverLong();
			org.awaitility.Awaitility.await()
				.untilAsserted(() -> assertThat(meters.get("resilience.pool.active").tag("pool", "two").gauge().value())
					.isOne());
			CompletableFuture<String> waiting = inner.neverLong();
			org.awaitility.Awaitility.await()
				.untilAsserted(() -> assertThat(meters.get("resilience.pool.pending").tag("pool", "two").gauge().value())
					.isOne());
			waiting.cancel(true);
			holding.cancel(true);
			org.awaitility.Awaitility.await()
				.untilAsserted(() -> assertThat(meters.get("resilience.pool.pending").tag("pool", "two").gauge().value())
					.isZero());
		});
	}

	@Test
	void cancellingARetriedRateLimitedPooledStageLeavesThePoolsQueue() {
		this.contextRunner
			.run((context) -> {
				Inner inner = context.getBean(Inner.class);
				ConnectionPool<?> two = context.getBean("two", ConnectionPool.class);
				dev.resilience.ratelimit.RateLimiter conc = context
					.getBean(dev.resilience.ratelimit.RateLimiterRegistry.class)
					.get("conc");
				CompletableFuture<String> holding = inner.neverLong();
				org.awaitility.Awaitility.await().until(() -> two.getStats().active() == 1);
				CompletableFuture<String> waiting = inner.retriedLimitedPooled();
				org.awaitility.Awaitility.await().until(() -> two.getStats().pending() == 1);
				assertThat(conc.inspect("").getRemaining()).isEqualTo(4);
				waiting.cancel(true);
				org.awaitility.Awaitility.await().until(() -> two.getStats().pending() == 0);
				org.awaitility.Awaitility.await().until(() -> conc.inspect("").getRemaining() == 5);
				holding.cancel(true);
				org.awaitility.Awaitility.await().until(() -> two.getStats().active() == 0);
				assertThat(inner.retriedLimitedPooled().get(5, TimeUnit.SECONDS)).isEqualTo("done");
			});
	}

	@Test
	void connectionOrderedOutsideRetryKeepsItsConnectionCurrentForEveryAttempt() {
		this.contextRunner
			.withPropertyValues("resilience.aspect-order.connection=0")
			.run((context) -> {
				Inner inner = context.getBean(Inner.class);
				assertThat(inner.retriedInsidePool()).isEqualTo("ok");
				assertThat(inner.calls().get()).isEqualTo(3);
			});
	}

	@WithConnection("two")
	public interface TypeApi {

		String work();

	}

	static class TypeApiImpl implements TypeApi {

		@Autowired
		@Lazy
		@org.springframework.beans.factory.annotation.Qualifier("two")
		ConnectionPool<Object> two;

		@Override
		public String work() {
			this.two.current();
			return "pooled";
		}

	}

	public interface Api {

		@WithConnection("two")
		String work();

	}

	static class ApiImpl implements Api {

		@Autowired
		@Lazy
		@org.springframework.beans.factory.annotation.Qualifier("two")
		ConnectionPool<Object> two;

		@Override
		public String work() {
			this.two.current();
			return "pooled";
		}

	}

	static class Inner {

		final AtomicInteger polls = new AtomicInteger();

		// Three attempts of 1 s: past one deadline of 2 s shared by all, within one of 2 s each, with
		// a second to spare for a loaded machine (150 ms of work in 300 ms was not enough).
		@PollUntil(until = "#result >= 3", delay = "1ms")
		@WithConnection(pool = "two", timeout = "2s")
		public int slowPolled() throws InterruptedException {
			Thread.sleep(1_000);
			return this.polls.incrementAndGet();
		}

		@WithConnection("two")
		public String checked() throws java.io.IOException {
			throw new java.io.IOException("checked");
		}

		@dev.resilience.retry.Retryable("r")
		@dev.resilience.ratelimit.RateLimited("conc")
		@WithConnection(pool = "two", timeout = "5s")
		public CompletableFuture<String> retriedLimitedPooled() {
			return CompletableFuture.completedFuture("done");
		}

		@Autowired
		@org.springframework.beans.factory.annotation.Qualifier("two")
		ConnectionPool<Object> two;

		final AtomicInteger calls = new AtomicInteger();

		AtomicInteger calls() {
			return this.calls;
		}

		@dev.resilience.retry.Retryable("r")
		@WithConnection(pool = "two", timeout = "5s")
		public String retriedInsidePool() {
			this.two.current();
			if (this.calls.incrementAndGet() < 3) {
				throw new IllegalStateException("down");
			}
			return "ok";
		}

		@WithConnection(pool = "two", timeout = "5s")
		public CompletableFuture<String> neverLong() {
			return new CompletableFuture<>();
		}

		@WithConnection(pool = "two", timeout = "100ms")
		public CompletableFuture<String> never() {
			return new CompletableFuture<>();
		}

		@WithConnection("two")
		public String fails() {
			throw new IllegalStateException("boom");
		}

		@WithConnection("two")
		public CompletableFuture<String> failsLater() {
			return CompletableFuture.failedFuture(new IllegalStateException("boom"));
		}

	}

}
