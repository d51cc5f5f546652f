package dev.resilience.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.resilience.ratelimit.redis.RedisServer;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The profile {@code redis}: two instances of the sample, on a {@code redis-server} this test starts
 * on a free port ({@link RedisServer}: the PATH's, else embedded-redis's), share the partner's
 * window instead of admitting it twice.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "resilience.redis.decision-timeout=5s", "resilience.redis.connect-timeout=30s",
				SampleRedisProfileTests.HOUR_WINDOW_LIMIT,
				SampleRedisProfileTests.HOUR_WINDOW_PERIOD })
@ActiveProfiles("redis")
class SampleRedisProfileTests {

	// The partner's window of 25, over an hour instead of 5 s: the count is exact however slowly a
	// busy machine runs the bursts.
	static final String HOUR_WINDOW_LIMIT = "resilience.rate-limiters.partner-api.windows[0].limit=25";

	static final String HOUR_WINDOW_PERIOD = "resilience.rate-limiters.partner-api.windows[0].period=1h";

	private static RedisServer redis;

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private JsonMapper json;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		redis = RedisServer.start();
		registry.add("spring.data.redis.port", redis::port);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void twoInstancesShareThePartnersWindow() throws Exception {
		try (ConfigurableApplicationContext second = new SpringApplicationBuilder(SampleApplication.class)
			.profiles("redis")
			.run("--server.port=0", "--spring.data.redis.port=" + redis.port(), "--resilience.redis.decision-timeout=5s",
					"--resilience.redis.connect-timeout=30s", "--" + HOUR_WINDOW_LIMIT, "--" + HOUR_WINDOW_PERIOD)) {
			int secondPort = ((WebServerApplicationContext) second).getWebServer().getPort();
			CompletableFuture<JsonNode> one = CompletableFuture.supplyAsync(() -> burst(this.port));
			CompletableFuture<JsonNode> two = CompletableFuture.supplyAsync(() -> burst(secondPort));
			JsonNode first = one.get(30, TimeUnit.SECONDS);
			JsonNode other = two.get(30, TimeUnit.SECONDS);
			// In memory each instance would admit 25; sharing Redis, both together admit 25.
			assertThat(admitted(first) + admitted(other)).isEqualTo(25);
			assertThat(first.get("rejected").asInt() + other.get("rejected").asInt()).isEqualTo(15);
		}
	}

	private static int admitted(JsonNode report) {
		return report.get("admitted").asInt() + report.get("waited").asInt();
	}

	private JsonNode burst(int port) {
		try {
			HttpResponse<String> response = this.http.send(
					HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/demo/burst?calls=20")).build(),
					HttpResponse.BodyHandlers.ofString());
			assertThat(response.statusCode()).isEqualTo(200);
			return this.json.readTree(response.body());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
