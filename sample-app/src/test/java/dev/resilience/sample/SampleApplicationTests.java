package dev.resilience.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts the sample on a random port and drives it over HTTP. The limiters decide on a clock that
 * moves only when a limited call waits ({@link ManualTime}), so the counts against the 5 s windows
 * are exact however long the requests take on a busy machine (on real time, a burst stalled past
 * its window's 5 s had one more call admitted).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleApplicationTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private JsonMapper json;

	@Test
	void burstIsPacedThenCutAtTheFiveSecondWindow() throws Exception {
		HttpResponse<String> response = get("/demo/burst?calls=40", null);

		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode report = this.json.readTree(response.body());
		// The bucket admits the first 10 at once and paces the next 15 at 100 ms each, so the 25th
		// is admitted at 1.5 s; the 5 s window admits exactly 25, and the 26th would wait 3.5 s for
		// it, more than max-wait (2 s): rejected at once with Retry-After 4 s, as are the rest.
		assertThat(report.get("admitted").asInt()).isEqualTo(10);
		assertThat(report.get("waited").asInt()).isEqualTo(15);
		assertThat(report.get("waitedMillis").asLong()).isEqualTo(1_500);
		assertThat(report.get("rejected").asInt()).isEqualTo(15);
		assertThat(report.get("retryAfterSeconds").asLong()).isEqualTo(4);

		HttpResponse<String> metrics = get("/actuator/metrics/resilience.ratelimiter.calls?tag=name:partner-api&tag=outcome:rejected", null);
		assertThat(this.json.readTree(metrics.body()).get("measurements").get(0).get("value").asDouble()).isEqualTo(15.0);
	}

	@Test
	void partnerAnswers429WithRetryAfterBeyondItsLimit() throws Exception {
		String apiKey = "greedy-test-client";
		for (int i = 1; i <= 30; i++) {
			HttpResponse<String> admitted = get("/partner/orders/" + i, apiKey);
			assertThat(admitted.statusCode()).isEqualTo(200);
			assertThat(admitted.headers().allValues("RateLimit")).isNotEmpty();
		}

		HttpResponse<String> rejected = get("/partner/orders/31", apiKey);

		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		// All 31 calls came at one instant of the test's clock: the window frees a slot 5 s later.
		assertThat(rejected.headers().firstValue("Retry-After")).hasValue("5");
		assertThat(rejected.headers().firstValue("RateLimit-Policy"))
			.hasValue("\"partner-server-5s\";q=30;w=5, \"partner-server-60s\";q=300;w=60");
		assertThat(rejected.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"partner-server-5s\";r=0;t=");
		JsonNode problem = this.json.readTree(rejected.body());
		assertThat(problem.get("status").asInt()).isEqualTo(429);
		assertThat(problem.get("limiter").asString()).isEqualTo("partner-server");
		// The rejection is among the recent events, with its numbers but without the API key.
		JsonNode events = this.json
			.readTree(get("/actuator/resilience/events?name=partner-server&kind=rejected", null).body())
			.get("events");
		assertThat(events).isNotEmpty();
		assertThat(events.get(0).get("outcome").asString()).isEqualTo("rejected");
		assertThat(events.get(0).get("key").isNull()).isTrue();
		assertThat(events.get(0).get("details").get("retryAfter").asString()).matches("[0-9]+(ms|s|m)");

		// Another API key has its own bucket.
		assertThat(get("/partner/orders/1", "another-client").statusCode()).isEqualTo(200);
	}

	@Test
	void actuatorListsTheLimitersAndInspectsAKey() throws Exception {
		HttpResponse<String> all = get("/actuator/resilience", null);
		assertThat(all.statusCode()).isEqualTo(200);
		JsonNode limiters = this.json.readTree(all.body()).get("rateLimiters");
		assertThat(limiters.get("partner-api").get("windows").get(0).get("limit").asLong()).isEqualTo(25);
		assertThat(limiters.get("partner-server").get("store").asString()).isEqualTo("memory");

		HttpResponse<String> key = get("/actuator/resilience/partner-server?key=nobody-yet", null);
		assertThat(key.statusCode()).isEqualTo(200);
		assertThat(this.json.readTree(key.body()).get("remaining").asLong()).isEqualTo(30);

		assertThat(get("/actuator/resilience/no-such-limiter", null).statusCode()).isEqualTo(404);
		assertThat(get("/actuator/prometheus", null).statusCode()).isEqualTo(200);
	}

	/**
	 * The starter's clock and sleeper replaced: a limited call's wait moves the clock by exactly that
	 * long instead of sleeping, and nothing else moves it.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class ManualTime {

		private final AtomicLong nanos = new AtomicLong(TimeUnit.HOURS.toNanos(1));

		@Bean
		Ticker manualTicker() {
			return this.nanos::get;
		}

		@Bean
		Sleeper manualSleeper() {
			return (sleepNanos) -> this.nanos.addAndGet(Math.max(0, sleepNanos));
		}

	}

	private HttpResponse<String> get(String path, String apiKey) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path));
		if (apiKey != null) {
			request.header("X-Api-Key", apiKey);
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
