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
 * Drives {@code /demo/deadline} over HTTP with a shorter deadline (2 s instead of 15 s) and a
 * partner that hangs for 30 s: the hung call comes back as a timeout, and the pool keeps serving.
 * The deadline covers every call, the ordinary ones too, so it is long enough for a request on a
 * loaded machine (500 ms was not); the hang is long enough that a call coming back at the deadline
 * cannot be mistaken for one that waited for the partner.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.partner.deadline=2s", "sample.partner.hang-for=30s" })
class DeadlineSampleTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private JsonMapper json;

	@Test
	void aHungCallTimesOutAtTheDeadlineAndThePoolKeepsServing() throws Exception {
		HttpResponse<String> response = get("/demo/deadline?calls=6");

		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode report = this.json.readTree(response.body());
		assertThat(report.get("hungCall").asString()).startsWith("OperationTimeoutException after ");
		// Back at the deadline, long before the partner would have answered (30 s).
		assertThat(report.get("hungCallMillis").asLong()).isBetween(2_000L, 15_000L);
		assertThat(report.get("afterwards")).hasSize(6)
			.allSatisfy((line) -> assertThat(line.asString()).matches("worker \\d+: echo: prompt \\d"));
		assertThat(report.get("pool").get("active").asInt()).isZero();

		HttpResponse<String> pools = get("/actuator/resilience");
		JsonNode pool = this.json.readTree(pools.body()).get("pools").get("partner-workers");
		assertThat(pool.get("maxSize").asInt()).isEqualTo(4);
		HttpResponse<String> timeouts = get(
				"/actuator/metrics/resilience.pool.operation?tag=pool:partner-workers&tag=outcome:timeout");
		assertThat(this.json.readTree(timeouts.body()).get("measurements").get(0).get("value").asDouble())
			.isEqualTo(1.0);
	}

	private HttpResponse<String> get(String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
