package dev.resilience.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One HTTP request's trace with a real tracer (OpenTelemetry through Micrometer Tracing, spans
 * kept in memory): the retry demo's calls wait for the partner's quota and one is retried, and
 * the request's span has the limiter's waits and the retry, with an event per attempt, as
 * children.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.tracing.sampling.probability=1.0",
				// One call per 500 ms: a call waits for its slot unless the one before took longer.
				"resilience.rate-limiters.partner-invoices.token-bucket.capacity=1",
				"resilience.rate-limiters.partner-invoices.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.partner-invoices.token-bucket.refill-period=500ms",
				"resilience.rate-limiters.partner-invoices.max-wait=5s" })
@AutoConfigureTracing
class TracingTests {

	private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private InMemorySpanExporter spans;

	@Test
	void aRequestsSpanHasTheLimiterWaitsAndTheRetryWithItsAttemptsAsChildren() throws Exception {
		// Invoice 4 is answered 503 once, then served: one retry.
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/demo/retries?calls=4")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).isEqualTo(200);

		SpanData request = await().atMost(Duration.ofSeconds(10))
			.until(() -> named("http get /demo/retries"), (found) -> found.size() == 1)
			.get(0);
		List<SpanData> waits = named("resilience.ratelimiter.wait partner-invoices");
		List<SpanData> retries = named("resilience.retry partner-invoices");

		// The first call did not wait; the second may not have, if the first (on a cold JVM) took
		// longer than a slot; the third, the fourth and the retry of the fourth did.
		assertThat(waits).hasSizeBetween(3, 4).allSatisfy((wait) -> {
			assertThat(wait.getParentSpanId()).isEqualTo(request.getSpanId());
			assertThat(wait.getTraceId()).isEqualTo(request.getTraceId());
			assertThat(wait.getAttributes().get(OUTCOME)).isEqualTo("waited");
			assertThat(wait.getAttributes().get(AttributeKey.stringKey("name"))).isEqualTo("partner-invoices");
			assertThat(wait.getAttributes().get(AttributeKey.stringKey("store"))).isEqualTo("memory");
		});
		assertThat(retries).singleElement().satisfies((retry) -> {
			assertThat(retry.getParentSpanId()).isEqualTo(request.getSpanId());
			assertThat(retry.getAttributes().get(AttributeKey.stringKey("kind"))).isEqualTo("successful_with_retry");
			assertThat(retry.getAttributes().get(AttributeKey.stringKey("attempt"))).isEqualTo("2");
			assertThat(retry.getEvents()).extracting(EventData::getName)
				.satisfiesExactly((first) -> assertThat(first).isEqualTo("attempt 1 failed after a delay of 0 ms"),
						(second) -> assertThat(second).matches("attempt 2 returned after a delay of \\d+ ms"));
			// The retry waited for its delay, then for its slot: it spans both.
			assertThat(retry.getEndEpochNanos()).isGreaterThan(retry.getStartEpochNanos());
		});
	}

	private List<SpanData> named(String name) {
		return this.spans.getFinishedSpanItems().stream().filter((span) -> span.getName().equals(name)).toList();
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class InMemorySpans {

		/** Boot's span processor exports to it; the request's span ends after its children. */
		@Bean
		InMemorySpanExporter inMemorySpanExporter() {
			return InMemorySpanExporter.create();
		}

	}

}
