package dev.resilience.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives the retry demo over HTTP, in real time: invoices from a partner that answers 503 and
 * 429 now and then, fetched by a client that retries outside its rate limiter.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RetryDemoTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private JsonMapper json;

	@Test
	void retriesShowEachCallsHistory() throws Exception {
		JsonNode report = this.json.readTree(get("/demo/retries?calls=12").body());

		assertThat(report.get("calls").asInt()).isEqualTo(12);
		assertThat(report.get("succeeded").asInt()).isEqualTo(11);
		assertThat(report.get("failed").asInt()).isEqualTo(1);
		// One retry for each of 4, 5, 8, 10 and 12; three for 11, which the partner never serves.
		assertThat(report.get("retries").asInt()).isEqualTo(8);
		JsonNode invoices = report.get("invoices");
		assertThat(attempts(invoices)).containsExactly(1, 1, 1, 2, 2, 1, 1, 2, 1, 2, 4, 2);

		JsonNode unavailable = invoices.get(3);
		assertThat(unavailable.get("outcome").asString()).isEqualTo("fetched");
		assertThat(unavailable.get("history").get(0).asString()).startsWith("#1 after 0ms").contains("503");
		assertThat(unavailable.get("history").get(1).asString()).startsWith("#2 after ").endsWith(": returned");

		// The 429's Retry-After of 1 s is the delay before the second attempt.
		String retriedAfter = invoices.get(4).get("history").get(1).asString();
		Duration delay = DurationStyle
			.detectAndParse(retriedAfter.substring("#2 after ".length(), retriedAfter.indexOf(',')));
		assertThat(delay).isGreaterThanOrEqualTo(Duration.ofSeconds(1));

		JsonNode exhausted = invoices.get(10);
		assertThat(exhausted.get("outcome").asString()).contains("503").contains("; Tried 4 times over ");
		assertThat(exhausted.get("history")).hasSize(4);

		JsonNode calls = this.json.readTree(
				get("/actuator/metrics/resilience.retry.calls?tag=name:partner-invoices&tag=kind:failed_with_retry").body());
		assertThat(calls.get("measurements").get(0).get("value").asDouble()).isEqualTo(1.0);
		JsonNode retries = this.json.readTree(get("/actuator/resilience").body()).get("retries");
		assertThat(retries.get("partner-invoices").get("maxRetries").asInt()).isEqualTo(3);
		assertThat(retries.get("partner-invoices").get("budget").get("ratio").asDouble()).isEqualTo(0.2);
	}

	private static List<Integer> attempts(JsonNode invoices) {
		List<Integer> attempts = new ArrayList<>();
		invoices.forEach((invoice) -> attempts.add(invoice.get("attempts").asInt()));
		return attempts;
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
