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
 * The asynchronous export end to end over HTTP, in real time: the client starts an export at
 * the partner and polls its status with {@code @PollUntil}, each poll through the
 * {@code partner-api} rate limiter, until the partner reports it done.
 */
// The export takes a second and is checked every 100 ms (a linear backoff capped at its first
// delay, as application.yml sets a max-delay, which a fixed backoff would refuse): even on a busy
// machine the first check comes before it is done, and the dozen checks stay within the
// partner-api limits.
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.partner.export-delay=1s", "resilience.polls.partner-export.backoff=linear",
				"resilience.polls.partner-export.delay=100ms", "resilience.polls.partner-export.max-delay=100ms" })
class ExportFlowTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private JsonMapper json;

	@Test
	void exportIsPolledUntilDoneEachPollRateLimited() throws Exception {
		double limitedBefore = partnerApiCalls();

		HttpResponse<String> response = get("/demo/export");

		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode report = this.json.readTree(response.body());
		assertThat(report.get("status").asString()).isEqualTo("DONE");
		int checks = report.get("statusChecks").asInt();
		assertThat(checks).isGreaterThanOrEqualTo(2);
		assertThat(report.get("elapsedMillis").asLong()).isGreaterThanOrEqualTo(1000);

		assertThat(measurement("/actuator/metrics/resilience.poll.calls?tag=name:partner-export&tag=outcome:fulfilled"))
			.isEqualTo(1.0);
		assertThat(measurement("/actuator/metrics/resilience.poll.attempts?tag=name:partner-export")).isEqualTo(1.0);
		// The start and every status check asked the client's limiter.
		assertThat(partnerApiCalls() - limitedBefore).isEqualTo(checks + 1.0);
	}

	@Test
	void actuatorListsThePollSettings() throws Exception {
		HttpResponse<String> response = get("/actuator/resilience");

		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode poll = this.json.readTree(response.body()).get("polls").get("partner-export");
		assertThat(poll.get("maxAttempts").asInt()).isEqualTo(-1);
		assertThat(poll.get("timeout").asString()).isEqualTo("30s");
		assertThat(poll.get("backoff").asString()).isEqualTo("linear");
		assertThat(poll.get("delay").asString()).isEqualTo("100ms");
	}

	private double partnerApiCalls() throws Exception {
		HttpResponse<String> response = get("/actuator/metrics/resilience.ratelimiter.calls?tag=name:partner-api");
		return (response.statusCode() == 200)
				? this.json.readTree(response.body()).get("measurements").get(0).get("value").asDouble() : 0;
	}

	private double measurement(String path) throws Exception {
		HttpResponse<String> response = get(path);
		assertThat(response.statusCode()).isEqualTo(200);
		return this.json.readTree(response.body()).get("measurements").get(0).get("value").asDouble();
	}

	private HttpResponse<String> get(String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
