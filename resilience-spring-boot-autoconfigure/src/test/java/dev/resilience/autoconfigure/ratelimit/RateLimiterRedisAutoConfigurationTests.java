package dev.resilience.autoconfigure.ratelimit;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceHealthAutoConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceHealthIndicator;
import dev.resilience.autoconfigure.support.ContinuationScheduler;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimiterRedisAutoConfiguration}, against a real Redis the tests start.
 */
class RateLimiterRedisAutoConfigurationTests {

	private static final RedisServer server = RedisServer.shared();

	/** Without resilience.redis settings, which are refused while no limiter uses Redis. */
	private final ApplicationContextRunner memoryContextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterRedisAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RateLimiterMetricsAutoConfiguration.class, ResilienceHealthAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port());

	private final ApplicationContextRunner contextRunner = this.memoryContextRunner
		.withPropertyValues("resilience.redis.key-prefix=autoconfig-" + System.nanoTime() + ":",
				// startup waits for the connection (a cold JVM loads Lettuce meanwhile) and the
				// decisions for Redis: time enough on a busy machine
				"resilience.redis.connect-timeout=30s", "resilience.redis.decision-timeout=5s");

	@Test
	void runWhenLimiterUsesRedisShouldDecideThereAndReportUp() {
		this.contextRunner.withPropertyValues(shared("partner", 3)).run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			assertThat(limiter.getStoreType()).isEqualTo("redis");
			List<Boolean> outcomes = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				outcomes.add(limiter.tryAcquire("k", 1).isPermitted());
			}
			assertThat(outcomes).containsExactly(true, true, true, false);
			Health health = context.getBean(ResilienceHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails().get("rateLimiters")).isEqualTo(
					Map.of("partner", Map.of("store", "redis", "status", "UP", "errors", 0L)));
		});
	}

	@Test
	void runWhenAnAsyncDecisionTimesOutShouldRunTheCallersContinuationOnTheResilienceScheduler() {
		try (RedisServer frozen = RedisServer.start()) {
			this.contextRunner.withPropertyValues(shared("partner", 3))
				.withPropertyValues("spring.data.redis.port=" + frozen.port(), "resilience.redis.decision-timeout=200ms")
				.run((context) -> {
					RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
					assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
					frozen.freeze();
					try {
						// given up on at the decision timeout: by a timer of the starter's scheduler,
						// not the JDK's delay thread, and the caller's code runs there too
						CompletableFuture<String> thread = limiter.reserveAsync("k", 1, Duration.ZERO)
							.thenApply((reservation) -> Thread.currentThread().getName());
						assertThat(thread.get(30, TimeUnit.SECONDS)).startsWith(ContinuationScheduler.THREAD_PREFIX);
					}
					finally {
						frozen.thaw();
					}
				});
		}
	}

	@Test
	void runWhenTwoInstancesShareAWindowShouldAdmitExactlyItsLimitBetweenThem() {
		int limit = 150;
		String[] properties = shared("shared", limit);
		// Fail-closed and a timeout long enough for a busy machine: any failure shows as too few.
		ApplicationContextRunner runner = this.contextRunner.withPropertyValues(properties)
			.withPropertyValues("resilience.rate-limiters.shared.on-store-failure=fail-closed");
		runner.run((first) -> runner
			.withPropertyValues("resilience.redis.key-prefix=" + first.getEnvironment().getProperty("resilience.redis.key-prefix"))
			.run((second) -> {
				RateLimiter one = first.getBean(RateLimiterRegistry.class).get("shared");
				RateLimiter two = second.getBean(RateLimiterRegistry.class).get("shared");
				assertThat(one.checkStoreStatus().reachable()).isTrue();
				assertThat(two.checkStoreStatus().reachable()).isTrue();
				AtomicInteger admitted = new AtomicInteger();
				CountDownLatch start = new CountDownLatch(1);
				List<Thread> threads = new ArrayList<>();
				for (int t = 0; t < 32; t++) {
					RateLimiter limiter = (t % 2 == 0) ? one : two;
					Thread thread = new Thread(() -> {
						await(start);
						for (int i = 0; i < 20; i++) {
							if (limiter.tryAcquire("tenant", 1).isPermitted()) {
								admitted.incrementAndGet();
							}
						}
					});
					thread.start();
					threads.add(thread);
				}
				start.countDown();
				for (Thread thread : threads) {
					thread.join();
				}
				assertThat(admitted).hasValue(limit);
				assertThat(one.getStoreErrors() + two.getStoreErrors()).isZero();
			}));
	}

	@Test
	void runWithOnlyInMemoryLimitersShouldNeverContactRedis() throws IOException {
		try (CountingServer fake = new CountingServer()) {
			this.memoryContextRunner
				.withPropertyValues("spring.data.redis.port=" + fake.port(), "resilience.rate-limiters.local.max-concurrent=1")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					context.getBean(RateLimiterRegistry.class).get("local").acquire("k", 1).close();
					assertThat(context.getBean(ResilienceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
				});
			assertThat(fake.accepted()).isZero();
		}
	}

	@Test
	void runWhenRedisIsDownShouldStartAndFollowOnStoreFailure() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=" + closedPort, "resilience.redis.decision-timeout=200ms",
					"resilience.redis.connect-timeout=200ms")
			.withPropertyValues(shared("open", 1))
			.withPropertyValues(shared("closed", 1))
			.withPropertyValues("resilience.rate-limiters.closed.on-store-failure=fail-closed")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				for (int i = 0; i < 3; i++) {
					assertThat(registry.get("open").tryAcquire("k", 1).isPermitted()).isTrue();
					RateLimitDecision closed = registry.get("closed").tryAcquire("k", 1);
					assertThat(closed.isPermitted()).isFalse();
					assertThat(closed.getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
				}
				assertThat(context.getBean(MeterRegistry.class)
					.get(RateLimiterKeyGauges.STORE_ERRORS)
					.tags("name", "open", "store", "redis")
					.functionCounter()
					.count()).isEqualTo(3.0);
				Health health = context.getBean(ResilienceHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails().get("rateLimiters")).asInstanceOf(
						org.assertj.core.api.InstanceOfAssertFactories.MAP).containsKeys("open", "closed");
			});
	}

	@Test
	void runWhenAFreshContextIsHitByABurstShouldHaveRedisDecideEveryCall() {
		// the scenario: a default decision timeout, fail-open, 8 threads x 5 calls at once on 20
		ApplicationContextRunner runner = this.contextRunner.withPropertyValues("resilience.redis.decision-timeout=200ms")
			.withPropertyValues(shared("burst", 20));
		runner.run((context) -> assertBurstAdmitsExactlyTheLimit(context.getBean(RateLimiterRegistry.class).get("burst")));
	}

	@Test
	void runWhenAFreshContextOnAClusterIsHitByABurstShouldHaveRedisDecideEveryCall() {
		String nodes = RedisServer.Cluster.shared()
			.masters()
			.stream()
			.map((master) -> "127.0.0.1:" + master.port())
			.collect(Collectors.joining(","));
		ApplicationContextRunner runner = this.contextRunner
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes, "resilience.redis.decision-timeout=200ms")
			.withPropertyValues(shared("burst", 20));
		runner.run((context) -> {
			assertThat(context.getBean(LettuceConnectionFactory.class).getClusterConfiguration()).isNotNull();
			assertBurstAdmitsExactlyTheLimit(context.getBean(RateLimiterRegistry.class).get("burst"));
		});
	}

	private static void assertBurstAdmitsExactlyTheLimit(RateLimiter limiter) throws InterruptedException {
		AtomicInteger admitted = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			Thread thread = new Thread(() -> {
				await(start);
				for (int i = 0; i < 5; i++) {
					if (limiter.tryAcquire("tenant", 1).isPermitted()) {
						admitted.incrementAndGet();
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		start.countDown();
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(limiter.getStoreErrors()).isZero();
		assertThat(admitted).hasValue(20);
	}

	@Test
	void runWhenRedisIsDownShouldWaitForItNoLongerThanTheConnectTimeout() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		long start = System.nanoTime();
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=" + closedPort, "resilience.redis.connect-timeout=500ms",
					"resilience.redis.decision-timeout=1s")
			.withPropertyValues(shared("partner", 1))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Duration started = Duration.ofNanos(System.nanoTime() - start);
				// Lettuce's own connect timeout is 10 s
				assertThat(started).isGreaterThanOrEqualTo(Duration.ofMillis(500)).isLessThan(Duration.ofSeconds(8));
				// down: decided at once by on-store-failure, the 20 decisions within one decision
				// timeout (waiting it out would take 20 s), which holds on a loaded machine
				long decided = System.nanoTime();
				for (int i = 0; i < 20; i++) {
					assertThat(context.getBean(RateLimiterRegistry.class).get("partner").tryAcquire("k", 1).isPermitted())
						.isTrue();
				}
				assertThat(Duration.ofNanos(System.nanoTime() - decided)).isLessThan(Duration.ofSeconds(1));
			});
	}

	@Test
	void runWhenConnectTimeoutIsZeroShouldConnectInTheBackgroundWithoutAWarning() {
		// held here: java.util.logging keeps loggers only weakly
		Logger logger = Logger.getLogger(RateLimiterRedisAutoConfiguration.class.getName());
		List<String> lines = new CopyOnWriteArrayList<>();
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord record) {
				lines.add(record.getLevel() + " " + record.getMessage());
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		logger.addHandler(handler);
		try {
			this.contextRunner.withPropertyValues(shared("partner", 3))
				.withPropertyValues("resilience.redis.connect-timeout=0")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
					assertThat(limiter.checkStoreStatus().reachable()).isTrue();
				});
		}
		finally {
			logger.removeHandler(handler);
		}
		// connecting in the background is what the property asked for: no "Redis did not answer"
		assertThat(lines).isEmpty();
	}

	@Test
	void runWithOnlyInMemoryLimitersShouldRefuseAConnectTimeoutNothingWouldWaitFor() {
		this.memoryContextRunner
			.withPropertyValues("resilience.redis.connect-timeout=10s", "resilience.rate-limiters.local.max-concurrent=1")
			.run(Failures.startupFailedWith("resilience.redis.connect-timeout cannot take effect: only rate limiters "
					+ "with store: redis use Redis, and none has it"));
	}

	@Test
	void runWithSeveralConnectionFactoriesNoneOfThemPrimaryShouldFailNamingThem() {
		this.contextRunner.withBean("first", RedisConnectionFactory.class, RateLimiterRedisAutoConfigurationTests::lettuce)
			.withBean("second", RedisConnectionFactory.class, RateLimiterRedisAutoConfigurationTests::lettuce)
			.withPropertyValues(shared("partner", 1))
			.run(Failures.startupFailedWith("resilience.rate-limiters.partner.store is redis, but the application has "
					+ "several RedisConnectionFactory beans and none is primary: [first, second]; mark the one the "
					+ "rate limiters use @Primary"));
	}

	@Test
	void runWithSeveralConnectionFactoriesOneOfThemPrimaryShouldDecideThroughIt() {
		this.contextRunner
			.withBean("first", RedisConnectionFactory.class, RateLimiterRedisAutoConfigurationTests::lettuce,
					(definition) -> definition.setPrimary(true))
			.withBean("second", RedisConnectionFactory.class, RateLimiterRedisAutoConfigurationTests::lettuce)
			.withPropertyValues(shared("partner", 1))
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
				assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
				assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
				assertThat(limiter.getStoreErrors()).isZero();
			});
	}

	private static RedisConnectionFactory lettuce() {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()));
	}

	@Test
	void runWhenConnectTimeoutIsNegativeShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues(shared("partner", 1))
			.withPropertyValues("resilience.redis.connect-timeout=-1s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure())).anySatisfy((message) -> assertThat(message)
					.startsWith("resilience.redis.connect-timeout must not be negative but was -1s"));
			});
	}

	@Test
	void runWhenConnectTimeoutDoesNotParseShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues(shared("partner", 1))
			.withPropertyValues("resilience.redis.connect-timeout=soon")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.anySatisfy((message) -> assertThat(message).contains("resilience.redis.connect-timeout"));
			});
	}

	@Test
	void runWhenKeyPrefixHoldsABraceShouldFailNamingTheProperty() {
		this.contextRunner.withPropertyValues(shared("partner", 1))
			.withPropertyValues("resilience.redis.key-prefix=app{1}:")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.anySatisfy((message) -> assertThat(message).startsWith("resilience.redis.key-prefix must not contain"));
			});
	}

	@Test
	void runWithoutSpringDataRedisShouldFailNamingTheStoreProperty() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(LettuceConnectionFactory.class))
			.withPropertyValues(shared("partner", 1))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure()))
					.anySatisfy((message) -> assertThat(message)
						.startsWith("resilience.rate-limiters.partner.store is redis, which needs Spring Data Redis"));
			});
	}

	@Test
	void runWithTheApplicationsOwnLettuceFactoryDeclaredAsRedisConnectionFactoryShouldDecideInRedis() {
		// a common way to declare one's own connection: the bean's declared type is the interface
		this.contextRunner.withUserConfiguration(OwnConnectionFactory.class)
			.withPropertyValues(shared("partner", 2))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
				assertThat(limiter.getStoreType()).isEqualTo("redis");
				List<Boolean> outcomes = new ArrayList<>();
				for (int i = 0; i < 3; i++) {
					outcomes.add(limiter.tryAcquire("k", 1).isPermitted());
				}
				assertThat(outcomes).containsExactly(true, true, false);
				assertThat(limiter.getStoreErrors()).isZero();
			});
	}

	@Test
	void runWithAConnectionFactoryOtherThanLettucesShouldFailNamingTheStoreProperty() {
		this.contextRunner
			.withBean(RedisConnectionFactory.class,
					() -> (RedisConnectionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
							new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
								throw new UnsupportedOperationException(method.getName());
							}))
			.withPropertyValues(shared("partner", 1))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(Failures.messages(context.getStartupFailure())).anySatisfy((message) -> assertThat(message)
					.startsWith("resilience.rate-limiters.partner.store is redis, which needs Spring Data Redis with Lettuce"));
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnConnectionFactory {

		@Bean
		RedisConnectionFactory redisConnectionFactory() {
			return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", server.port()));
		}

	}

	private static String[] shared(String name, int limit) {
		return new String[] { "resilience.rate-limiters." + name + ".store=redis",
				"resilience.rate-limiters." + name + ".windows[0].limit=" + limit,
				"resilience.rate-limiters." + name + ".windows[0].period=1h" };
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Listens on a free port and counts the connections made to it. */
	private static final class CountingServer implements AutoCloseable {

		private final ServerSocket socket = new ServerSocket(0);

		private final AtomicInteger accepted = new AtomicInteger();

		CountingServer() throws IOException {
			Thread acceptor = new Thread(() -> {
				while (true) {
					try (Socket connection = this.socket.accept()) {
						this.accepted.incrementAndGet();
					}
					catch (SocketException ex) {
						return;
					}
					catch (IOException ex) {
						// keep counting
					}
				}
			});
			acceptor.setDaemon(true);
			acceptor.start();
		}

		int port() {
			return this.socket.getLocalPort();
		}

		int accepted() {
			return this.accepted.get();
		}

		@Override
		public void close() throws IOException {
			this.socket.close();
		}

	}

}
