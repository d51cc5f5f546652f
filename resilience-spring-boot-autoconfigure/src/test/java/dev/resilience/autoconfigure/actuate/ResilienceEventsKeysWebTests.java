package dev.resilience.autoconfigure.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code resilience.include-keys=true}, {@code GET /actuator/resilience/events} shows
 * the key of each rate-limit event, over real HTTP ({@link ResilienceEventsWebTests} shows it
 * hidden by default).
 */
@SpringBootTest(classes = ResilienceEventsKeysWebTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=resilience", "resilience.include-keys=true",
				"resilience.rate-limiters.partner.windows[0].limit=1",
				"resilience.rate-limiters.partner.windows[0].period=1h" })
class ResilienceEventsKeysWebTests {

	@LocalServerPort
	private int port;

	@Test
	void rejectionShowsItsKey(@Autowired RateLimiterRegistry limiters) throws Exception {
		RateLimiter partner = limiters.get("partner");
		partner.tryAcquire("alice", 1);
		partner.tryAcquire("alice", 1);
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/resilience/events"))
				.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode events = JsonMapper.builder().build().readTree(response.body()).get("events");
		assertThat(events).hasSize(1);
		assertThat(events.get(0).get("kind").asString()).isEqualTo("rejected");
		assertThat(events.get(0).get("key").asString()).isEqualTo("alice");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class TestApplication {

	}

}
