package dev.resilience.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives the adaptive-concurrency demo over HTTP, in real time: 32 workers call a partner that
 * works on 8 requests at once (50 ms each), then 2, then 8 again, through {@code partner-adaptive}
 * ({@code max-concurrent: adaptive}, starting at 10). The limit settles near twice the capacity
 * (where a call's latency reaches twice the lowest), so it falls when the capacity falls and grows
 * back when it rises; the partner's queue follows the limit, not the 32 workers. The bounds are
 * generous, as the demo shares the machine with the build: typical runs settle at 14 to 18 with a
 * capacity of 8 and 3 to 5 with 2.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AdaptiveDemoTests {

	private static final int WORKERS = 32;

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private JsonMapper json;

	@Test
	void theLimitFallsWhenThePartnersCapacityFallsAndGrowsBackWhenItRises() throws Exception {
		run("8", 1); // loads the paths of a call, a wait for a permit and the partner's queue
		JsonNode report = run("8,2,8", 5);
		JsonNode phases = report.get("phases");
		JsonNode before = phases.get(0);
		JsonNode low = phases.get(1);
		JsonNode after = phases.get(2);
		assertThat(report.get("limiter").asString()).isEqualTo("partner-adaptive");
		assertThat(report.get("timeline").size()).isGreaterThanOrEqualTo(3 * 5 * 10 - 3);
		for (JsonNode phase : phases) {
			assertThat(phase.get("served").asLong()).as("served: %s", phase).isPositive();
		}
		double limitBefore = before.get("meanLimit").asDouble();
		double limitLow = low.get("meanLimit").asDouble();
		double limitAfter = after.get("meanLimit").asDouble();
		// With a capacity of 8 the limit leaves the partner busy...
		assertThat(limitBefore).as("limit with a capacity of 8: %s", phases).isGreaterThanOrEqualTo(6);
		// ...falls when the capacity falls to 2, so the partner's queue shrinks with it, far below
		// the 32 workers a fixed limit of 32 would send it...
		assertThat(limitLow).as("limit with a capacity of 2: %s", phases).isLessThanOrEqualTo(0.6 * limitBefore);
		assertThat(low.get("meanInsidePartner").asDouble()).as("inside the partner: %s", phases)
			.isLessThanOrEqualTo(WORKERS / 3.0);
		// ...and grows back when the capacity comes back.
		assertThat(limitAfter).as("limit with a capacity of 8 again: %s", phases)
			.isGreaterThanOrEqualTo(1.5 * limitLow)
			.isGreaterThanOrEqualTo(6);
		assertThat(after.get("servedPerSecond").asDouble()).as("served per second: %s", phases)
			.isGreaterThan(low.get("servedPerSecond").asDouble());
	}

	private JsonNode run(String capacities, int seconds) throws Exception {
		URI uri = URI.create("http://localhost:" + this.port + "/demo/adaptive?capacities=" + capacities + "&seconds="
				+ seconds + "&workers=" + WORKERS);
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return this.json.readTree(response.body());
	}

}
