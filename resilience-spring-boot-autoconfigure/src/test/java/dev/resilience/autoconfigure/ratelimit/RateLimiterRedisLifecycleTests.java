package dev.resilience.autoconfigure.ratelimit;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.redis.RedisServer;
import dev.resilience.ratelimit.store.StoreContractTests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Redis store's wiring from end to end: the annotation on a Redis limiter when Redis is down,
 * and the connection's life with the application context's.
 */
class RateLimiterRedisLifecycleTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterRedisAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RateLimiterMetricsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withUserConfiguration(ServiceConfiguration.class)
		.withPropertyValues("spring.data.redis.host=127.0.0.1",
				"resilience.redis.key-prefix=lifecycle-" + System.nanoTime() + ":",
				"resilience.rate-limiters.partner.store=redis", "resilience.rate-limiters.partner.windows[0].limit=1",
				"resilience.rate-limiters.partner.windows[0].period=1h");

	@Test
	void annotatedMethodWhenRedisIsDownShouldFailClosedAndCountTheErrors() throws IOException {
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=" + closedPort(), "resilience.redis.connect-timeout=200ms",
					"resilience.rate-limiters.partner.on-store-failure=fail-closed")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				for (int i = 0; i < 3; i++) {
					assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.call("k"))
						.satisfies((ex) -> {
							assertThat(ex.getLimiterName()).isEqualTo("partner");
							assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
						});
				}
				assertThat(service.calls()).isZero();
				assertThat(storeErrors(context)).isEqualTo(3.0);
			});
	}

	@Test
	void annotatedMethodWhenRedisIsDownShouldFailOpenAndCountTheErrors() throws IOException {
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=" + closedPort(), "resilience.redis.connect-timeout=200ms")
			.run((context) -> {
				Service service = context.getBean(Service.class);
				for (int i = 0; i < 3; i++) {
					service.call("k");
				}
				assertThat(service.calls()).isEqualTo(3);
				assertThat(storeErrors(context)).isEqualTo(3.0);
			});
	}

	@Test
	void closingTheContextShouldCloseItsRedisConnection() {
		RedisServer server = RedisServer.shared();
		String name = "lifecycle-" + System.nanoTime();
		ConfigurableApplicationContext[] closed = new ConfigurableApplicationContext[1];
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=" + server.port(), "spring.data.redis.client-name=" + name,
					"resilience.redis.connect-timeout=30s", "resilience.redis.decision-timeout=5s")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
				assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
				assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
				assertThat(clients(server, name)).isEqualTo(1);
				closed[0] = context;
			});
		awaitClients(server, name, 0);
	}

	@Test
	void aDecisionAfterTheContextClosedShouldNotOpenAConnection() {
		// Redis is down while the application runs and closes; a straggler decides afterwards
		try (RedisServer server = RedisServer.start()) {
			server.kill();
			String name = "lifecycle-" + System.nanoTime();
			RateLimiter[] limiter = new RateLimiter[1];
			this.contextRunner
				.withPropertyValues("spring.data.redis.port=" + server.port(), "spring.data.redis.client-name=" + name,
						"resilience.redis.connect-timeout=200ms")
				.run((context) -> limiter[0] = context.getBean(RateLimiterRegistry.class).get("partner"));
			server.launch();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			while (System.nanoTime() < deadline) {
				limiter[0].tryAcquire("k", 1);
				assertThat(clients(server, name)).as("connections of the closed context").isZero();
				StoreContractTests.sleep(100);
			}
		}
	}

	@Test
	void aContextStoppedAndStartedAgainShouldDecideInRedisAgain() {
		RedisServer server = RedisServer.shared();
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=" + server.port(), "resilience.redis.connect-timeout=30s",
					"resilience.redis.decision-timeout=5s", "resilience.rate-limiters.partner.on-store-failure=fail-closed")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
				assertThat(limiter.tryAcquire("a", 1).isPermitted()).isTrue();
				context.stop();
				context.start();
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
				while (!limiter.tryAcquire("b", 1).isPermitted()) {
					assertThat(System.nanoTime()).as("Redis decides again within 10 s: %s",
							limiter.checkStoreStatus()).isLessThan(deadline);
					StoreContractTests.sleep(100);
				}
				assertThat(limiter.tryAcquire("b", 1).isPermitted()).isFalse();
			});
	}

	private static void awaitClients(RedisServer server, String name, long expected) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (clients(server, name) != expected) {
			assertThat(System.nanoTime()).as("%s connections named %s within 10 s", expected, name).isLessThan(deadline);
			StoreContractTests.sleep(50);
		}
	}

	private static long clients(RedisServer server, String name) {
		return Arrays.stream(server.commands().clientList().split("\r?\n"))
			.filter((line) -> line.contains(" name=" + name + " "))
			.count();
	}

	private static double storeErrors(org.springframework.context.ApplicationContext context) {
		return context.getBean(MeterRegistry.class)
			.get(RateLimiterKeyGauges.STORE_ERRORS)
			.tags("name", "partner", "store", "redis")
			.functionCounter()
			.count();
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		Service service() {
			return new Service();
		}

	}

	static class Service {

		private int calls;

		public int calls() {
			return this.calls;
		}

		@RateLimited("partner")
		public void call(String key) {
			this.calls++;
		}

	}

}
