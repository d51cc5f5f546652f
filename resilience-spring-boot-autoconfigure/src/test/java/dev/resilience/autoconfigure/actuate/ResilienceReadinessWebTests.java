package dev.resilience.autoconfigure.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.resilience.ratelimit.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Asks {@code /actuator/health/readiness} over HTTP, as a Kubernetes readiness probe does, in an
 * application with a Redis limiter, its Redis (of its own) up, killed and frozen. A frozen server
 * keeps its connections open and answers nothing: readiness still answers, within the decision
 * timeout.
 */
@SpringBootTest(classes = ResilienceReadinessWebTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "resilience.rate-limiters.partner.store=redis",
				"resilience.rate-limiters.partner.windows[0].limit=5",
				"resilience.rate-limiters.partner.windows[0].period=1m", "resilience.redis.connect-timeout=30s",
				"resilience.redis.decision-timeout=200ms" })
class ResilienceReadinessWebTests {

	/** The longest a readiness answer may take with Redis frozen: the 200ms timeout and a busy machine. */
	private static final Duration ANSWER_BOUND = Duration.ofSeconds(2);

	private static final RedisServer server = RedisServer.start();

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> "127.0.0.1");
		registry.add("spring.data.redis.port", server::port);
	}

	@AfterAll
	static void stop() {
		server.close();
	}

	@Test
	void readinessShouldBeUpWhileRedisAnswers() throws Exception {
		HttpResponse<String> readiness = readiness();
		assertThat(readiness.statusCode()).isEqualTo(200);
		assertThat(readiness.body()).contains("\"status\":\"UP\"");
	}

	@Test
	void readinessShouldBeDownWhileRedisIsKilledAndUpWhenItIsBack() throws Exception {
		server.kill();
		try {
			HttpResponse<String> readiness = readiness();
			assertThat(readiness.statusCode()).isEqualTo(503);
			assertThat(readiness.body()).contains("\"status\":\"DOWN\"");
		}
		finally {
			server.launch();
		}
		awaitReady();
	}

	@Test
	void readinessShouldAnswerDownInTimeWhileRedisIsFrozenAndUpWhenItContinues() throws Exception {
		server.freeze();
		try {
			for (int i = 0; i < 3; i++) {
				long start = System.nanoTime();
				HttpResponse<String> readiness = readiness();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ANSWER_BOUND);
				assertThat(readiness.statusCode()).isEqualTo(503);
				assertThat(readiness.body()).contains("\"status\":\"DOWN\"");
			}
		}
		finally {
			server.thaw();
		}
		awaitReady();
	}

	private HttpResponse<String> readiness() throws IOException, InterruptedException {
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/health/readiness"))
			.timeout(Duration.ofSeconds(10))
			.build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private void awaitReady() throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (readiness().statusCode() != 200) {
			assertThat(System.nanoTime()).as("ready again within 20 s").isLessThan(deadline);
			Thread.sleep(100);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class TestApplication {

	}

}
