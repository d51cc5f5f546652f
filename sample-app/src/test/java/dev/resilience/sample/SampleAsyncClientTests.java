package dev.resilience.sample;

import java.io.IOException;
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
 * Drives the asynchronous clients over HTTP, in real time: the {@code WebClient} one returning a
 * {@code Mono} under {@code @Retryable} and a per-customer {@code @RateLimited}, and the
 * {@code CompletableFuture} one under {@code @Retryable} and {@code @RateLimited}. Invoices here
 * are numbered from 100 so as not to meet the retry demo's; customers differ per test, so each
 * has its own limit.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SampleAsyncClientTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private JsonMapper json;

	@Test
	void monoFetchesAnInvoice() throws Exception {
		JsonNode fetched = fetched("/demo/reactive/invoices/101?customer=mono-once");

		assertThat(fetched.get("invoice").get("id").asLong()).isEqualTo(101);
		assertThat(fetched.get("invoice").get("amountCents").asLong()).isEqualTo(101_000);
		assertThat(fetched.get("partnerRequest").asInt()).isEqualTo(1);
	}

	@Test
	void monoIsSubscribedAgainWhenThePartnerFails() throws Exception {
		double before = retriedCalls("partner-reactive");

		// The partner answers 503 to the first request for a multiple of 4, 429 with Retry-After: 1
		// to the first for a multiple of 5: each is fetched by the second request.
		JsonNode unavailable = fetched("/demo/reactive/invoices/104?customer=mono-retry");
		long started = System.nanoTime();
		JsonNode tooMany = fetched("/demo/reactive/invoices/105?customer=mono-retry");
		long tookMillis = (System.nanoTime() - started) / 1_000_000;

		assertThat(unavailable.get("invoice").get("id").asLong()).isEqualTo(104);
		assertThat(unavailable.get("partnerRequest").asInt()).isEqualTo(2);
		assertThat(tooMany.get("invoice").get("id").asLong()).isEqualTo(105);
		assertThat(tooMany.get("partnerRequest").asInt()).isEqualTo(2);
		assertThat(tookMillis).as("the 429's Retry-After is the delay").isGreaterThanOrEqualTo(1000);
		assertThat(retriedCalls("partner-reactive") - before).isEqualTo(2.0);
	}

	@Test
	void monoBeyondTheCustomersLimitIsAnswered429() throws Exception {
		for (int i = 1; i <= 5; i++) {
			assertThat(get("/demo/reactive/invoices/103?customer=mono-greedy").statusCode()).isEqualTo(200);
		}

		HttpResponse<String> rejected = get("/demo/reactive/invoices/103?customer=mono-greedy");

		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 10L);
		assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"partner-reactive-10s\";q=5;w=10");
		assertThat(this.json.readTree(rejected.body()).get("limiter").asString()).isEqualTo("partner-reactive");
		// Another customer has a limit of its own.
		assertThat(get("/demo/reactive/invoices/103?customer=mono-other").statusCode()).isEqualTo(200);
	}

	@Test
	void monosAssembledTogetherAreDecidedWhenSubscribed() throws Exception {
		JsonNode report = fetched("/demo/reactive/burst?calls=8&customer=mono-burst");

		// Assembling eight consumed nothing; of the eight subscriptions, the limit of 5 admits 5.
		assertThat(report.get("calls").asInt()).isEqualTo(8);
		assertThat(report.get("fetched").asInt()).isEqualTo(5);
		assertThat(report.get("rejected").asInt()).isEqualTo(3);
		assertThat(report.get("outcomes")).hasSize(8);
	}

	@Test
	void completableFutureFetchesAndRetriesInvoices() throws Exception {
		double before = retriedCalls("partner-async");

		JsonNode once = fetched("/demo/async/invoices/121");
		JsonNode unavailable = fetched("/demo/async/invoices/124");

		assertThat(once.get("invoice").get("id").asLong()).isEqualTo(121);
		assertThat(once.get("partnerRequest").asInt()).isEqualTo(1);
		assertThat(unavailable.get("invoice").get("id").asLong()).isEqualTo(124);
		assertThat(unavailable.get("partnerRequest").asInt()).isEqualTo(2);
		assertThat(retriedCalls("partner-async") - before).isEqualTo(1.0);
	}

	@Test
	void completableFutureThatExhaustsItsRetriesIsAnswered502WithItsHistory() throws Exception {
		// Invoice 11 is never served.
		HttpResponse<String> response = get("/demo/async/invoices/11");

		assertThat(response.statusCode()).isEqualTo(502);
		JsonNode problem = this.json.readTree(response.body());
		assertThat(problem.get("detail").asString()).contains("503");
		assertThat(problem.get("retries").asString()).startsWith("Tried 4 times over ");
		assertThat(problem.get("history")).hasSize(4);
	}

	private JsonNode fetched(String path) throws Exception {
		HttpResponse<String> response = get(path);
		assertThat(response.statusCode()).as("GET %s answered %s", path, response.body()).isEqualTo(200);
		return this.json.readTree(response.body());
	}

	private double retriedCalls(String name) throws Exception {
		HttpResponse<String> metric = get(
				"/actuator/metrics/resilience.retry.calls?tag=name:" + name + "&tag=kind:successful_with_retry");
		return (metric.statusCode() == 404) ? 0.0
				: this.json.readTree(metric.body()).get("measurements").get(0).get("value").asDouble();
	}

	private HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
