package dev.resilience.autoconfigure.pool;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimitedAdvisor;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.pool.CheckoutTimeoutException;
import dev.resilience.pool.ConnectionFactory;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolStats;
import dev.resilience.pool.OperationTimeoutException;
import dev.resilience.pool.WithConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ConnectionPoolAutoConfiguration}: pool beans, {@code @WithConnection} and the
 * context carried to the worker threads.
 */
class ConnectionPoolAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, ConnectionPoolAutoConfiguration.class,
				ConnectionPoolMetricsAutoConfiguration.class))
		.withUserConfiguration(Factories.class)
		.withPropertyValues("resilience.pools.llm.factory=httpWorkers", "resilience.pools.llm.max-size=2",
				"resilience.pools.llm.timeout=5s", "resilience.pools.db.factory=sessions",
				"resilience.pools.db.min-idle=1", "resilience.pools.db.max-idle-time=1m",
				"resilience.pools.db.validate-on-checkout=true", "resilience.pools.permits.max-size=1");

	@Test
	void runShouldRegisterAPoolBeanNamedAfterEachPool() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBeansOfType(ConnectionPool.class)).containsOnlyKeys("llm", "db", "permits");
			ConnectionPool<?> llm = context.getBean("llm", ConnectionPool.class);
			assertThat(llm.getName()).isEqualTo("llm");
			assertThat(llm.getSettings().maxSize()).isEqualTo(2);
			assertThat(llm.getSettings().timeout()).isEqualTo(Duration.ofSeconds(5));
			ConnectionPool<?> db = context.getBean("db", ConnectionPool.class);
			assertThat(db.getSettings().validateOnCheckout()).isTrue();
			assertThat(db.getSettings().maxIdleTime()).isEqualTo(Duration.ofMinutes(1));
			assertThat(db.getStats().idle()).isEqualTo(1);
			assertThat(context.getBean("permits", ConnectionPool.class).getSettings().maxSize()).isEqualTo(1);
		});
	}

	@Test
	void runShouldInjectPoolsByConnectionType() {
		this.contextRunner.withBean(TypedClient.class).run((context) -> {
			TypedClient client = context.getBean(TypedClient.class);
			assertThat(client.workers.getName()).isEqualTo("llm");
			assertThat(client.sessions.getName()).isEqualTo("db");
			assertThat(client.permits.getName()).isEqualTo("permits");
			assertThat(client.workers.<Integer>withConnection((worker) -> worker.id())).isEqualTo(1);
		});
	}

	@Test
	void runShouldCloseThePoolsWithTheContext() {
		AtomicInteger destroyed = new AtomicInteger();
		this.contextRunner.run((context) -> {
			AtomicInteger counted = context.getBean(Session.Factory.class).destroyed;
			assertThat(counted).hasValue(0);
			destroyed.set(-1);
			context.close();
			destroyed.set(counted.get());
		});
		// The min-idle session was destroyed when the context closed.
		assertThat(destroyed).hasValue(1);
	}

	@Test
	void annotatedMethodRunsWithAConnectionOnAWorkerThread() {
		this.contextRunner.withBean(LlmClient.class).run((context) -> {
			LlmClient client = context.getBean(LlmClient.class);
			Thread caller = Thread.currentThread();
			assertThat(client.complete("hi")).isEqualTo("worker 1: hi");
			assertThat(client.threads()).singleElement().isNotSameAs(caller);
			assertThat(context.getBean("llm", ConnectionPool.class).getStats())
				.isEqualTo(new ConnectionPoolStats(2, 0, 1, 0, 0));
		});
	}

	@Test
	void annotatedMethodCarriesTheCallersMdc() {
		this.contextRunner.withBean(LlmClient.class).run((context) -> {
			MDC.put("requestId", "r-42");
			try {
				assertThat(context.getBean(LlmClient.class).requestId()).isEqualTo("r-42");
			}
			finally {
				MDC.clear();
			}
			assertThat(context.getBean(LlmClient.class).requestId()).isNull();
		});
	}

	@Test
	void annotationTimeoutOverridesThePoolTimeout() {
		this.contextRunner.withBean(LlmClient.class).run((context) -> {
			LlmClient client = context.getBean(LlmClient.class);
			assertThatExceptionOfType(OperationTimeoutException.class).isThrownBy(client::hangBriefly)
				.satisfies((ex) -> assertThat(ex.getTimeout()).isEqualTo(Duration.ofMillis(100)));
			client.release();
		});
	}

	@Test
	void annotationWithoutTimeoutTakesThePoolTimeoutAndTypeLevelAnnotationApplies() {
		this.contextRunner.withBean(PermitClient.class).run((context) -> {
			PermitClient client = context.getBean(PermitClient.class);
			WithConnectionMethods methods = context.getBean(WithConnectionMethods.class);
			WithConnectionMethod binding = methods.get(PermitClient.class.getMethod("work"), PermitClient.class);
			assertThat(binding.timeout()).isEqualTo(Duration.ofSeconds(30));
			assertThat(binding.pool().getName()).isEqualTo("permits");
			assertThat(client.work()).isTrue();
		});
	}

	@Test
	void aCheckoutTimeoutMeansTheMethodNeverRan() throws Exception {
		this.contextRunner.withBean(PermitClient.class).run((context) -> {
			PermitClient client = context.getBean(PermitClient.class);
			ConnectionPool<?> permits = context.getBean("permits", ConnectionPool.class);
			Thread holder = new Thread(() -> permits.withConnection((permit) -> {
				client.holding().countDown();
				client.hold().await();
				return null;
			}));
			holder.start();
			client.holding().await();
			assertThatExceptionOfType(CheckoutTimeoutException.class).isThrownBy(client::quick);
			assertThat(client.quickRan()).isFalse();
			client.hold().countDown();
			holder.join();
		});
	}

	@Test
	void anExceptionOfTheMethodReachesTheCallerUnchanged() {
		this.contextRunner.withBean(LlmClient.class).run((context) -> {
			assertThatExceptionOfType(java.io.IOException.class).isThrownBy(() -> context.getBean(LlmClient.class).fail())
				.withMessage("partner down");
			assertThat(context.getBean("llm", ConnectionPool.class).getStats().idle()).isEqualTo(1);
		});
	}

	@Test
	void connectionAdviceRunsInsideRateLimitingByDefault() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(RateLimiterAutoConfiguration.class))
			.run((context) -> {
				assertThat(context.getBean(WithConnectionAdvisor.class).getOrder())
					.isEqualTo(Ordered.LOWEST_PRECEDENCE - 1);
				assertThat(context.getBean(WithConnectionAdvisor.class).getOrder())
					.isGreaterThan(context.getBean(RateLimitedAdvisor.class).getOrder());
			});
	}

	@Test
	void connectionAdviceOrderIsAProperty() {
		this.contextRunner.withPropertyValues("resilience.aspect-order.connection=5")
			.run((context) -> assertThat(context.getBean(WithConnectionAdvisor.class).getOrder()).isEqualTo(5));
	}

	@Test
	void runWithMeterRegistryShouldTimeCheckoutsAndOperationsAndGaugeThePools() {
		this.contextRunner.withBean(SimpleMeterRegistry.class).withBean(LlmClient.class).run((context) -> {
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			LlmClient client = context.getBean(LlmClient.class);
			client.complete("a");
			assertThatExceptionOfType(OperationTimeoutException.class).isThrownBy(client::hangBriefly);
			client.release();
			assertThat(meters.get("resilience.pool.checkout").tags("pool", "llm", "outcome", "acquired").timer().count())
				.isEqualTo(2);
			assertThat(meters.get("resilience.pool.operation").tags("pool", "llm", "outcome", "success").timer().count())
				.isOne();
			assertThat(meters.get("resilience.pool.operation").tags("pool", "llm", "outcome", "timeout").timer().count())
				.isOne();
			assertThat(meters.get("resilience.pool.idle").tags("pool", "db").gauge().value()).isEqualTo(1.0);
			// The timed-out connection is invalidated off the caller's thread, just after.
			await().untilAsserted(
					() -> assertThat(meters.get("resilience.pool.active").tags("pool", "llm").gauge().value()).isZero());
			assertThat(meters.get("resilience.pool.pending").tags("pool", "permits").gauge().value()).isZero();
		});
	}

	@Test
	void runWithoutMeterRegistryShouldNotProvideMetrics() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(ConnectionPoolMetrics.class)
			.doesNotHaveBean(ConnectionPoolGauges.class));
	}

	@Test
	void runWithUserContextSnapshotFactoryShouldUseIt() {
		ContextSnapshotFactory own = ContextSnapshotFactory.builder().build();
		this.contextRunner.withBean("ownSnapshots", ContextSnapshotFactory.class, () -> own)
			.run((context) -> assertThat(context).hasSingleBean(ContextSnapshotFactory.class)
				.doesNotHaveBean("resilienceContextSnapshotFactory"));
	}

	/** An HTTP worker of the llm pool. */
	record HttpWorker(int id) {
	}

	/** A session of the db pool. */
	record Session(int id) {

		/** Makes sessions, counting the destroyed ones. */
		static final class Factory implements ConnectionFactory<Session> {

			private final AtomicInteger created = new AtomicInteger();

			final AtomicInteger destroyed = new AtomicInteger();

			@Override
			public Session create() {
				return new Session(this.created.incrementAndGet());
			}

			@Override
			public void destroy(Session connection) {
				this.destroyed.incrementAndGet();
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Factories {

		private final AtomicInteger workers = new AtomicInteger();

		@Bean
		ConnectionFactory<HttpWorker> httpWorkers() {
			return () -> new HttpWorker(this.workers.incrementAndGet());
		}

		@Bean
		Session.Factory sessions() {
			return new Session.Factory();
		}

	}

	static class TypedClient {

		@Autowired
		ConnectionPool<HttpWorker> workers;

		@Autowired
		ConnectionPool<Session> sessions;

		@Autowired
		ConnectionPool<Object> permits;

	}

	static class LlmClient {

		final List<Thread> threads = new CopyOnWriteArrayList<>();

		private final java.util.concurrent.CountDownLatch hang = new java.util.concurrent.CountDownLatch(1);

		@Autowired
		ConnectionPool<HttpWorker> llm;

		@WithConnection(pool = "llm")
		public String complete(String prompt) {
			this.threads.add(Thread.currentThread());
			return "worker " + this.llm.current().id() + ": " + prompt;
		}

		@WithConnection("llm")
		public String requestId() {
			return MDC.get("requestId");
		}

		@WithConnection(pool = "llm", timeout = "100ms")
		public void hangBriefly() throws InterruptedException {
			this.hang.await();
		}

		@WithConnection(pool = "${pool-name:llm}")
		public void fail() throws java.io.IOException {
			throw new java.io.IOException("partner down");
		}

		void release() {
			this.hang.countDown();
		}

		// Package-private accessors reach the target through the proxy, unadvised.
		List<Thread> threads() {
			return this.threads;
		}

	}

	@WithConnection(pool = "permits")
	static class PermitClient {

		final java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);

		final java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);

		final AtomicBoolean quickRan = new AtomicBoolean();

		public boolean work() {
			return true;
		}

		@WithConnection(pool = "permits", timeout = "100ms")
		public void quick() {
			this.quickRan.set(true);
		}

		// Package-private accessors are not reached by the type-level annotation.
		java.util.concurrent.CountDownLatch holding() {
			return this.holding;
		}

		java.util.concurrent.CountDownLatch hold() {
			return this.hold;
		}

		AtomicBoolean quickRan() {
			return this.quickRan;
		}

	}

}
