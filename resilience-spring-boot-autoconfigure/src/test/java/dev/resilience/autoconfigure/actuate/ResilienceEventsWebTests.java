package dev.resilience.autoconfigure.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.resilience.poll.PollExhaustedException;
import dev.resilience.poll.PollUntil;
import dev.resilience.pool.CheckoutTimeoutException;
import dev.resilience.pool.OperationTimeoutException;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.redis.RedisServer;
import dev.resilience.retry.Retryable;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code GET /actuator/resilience/events} over real HTTP, in an application whose annotated
 * methods are really rejected, made to wait, retried, exhausted, timed out, and whose Redis is
 * really killed. Real time, kept short: these test the wiring; the recorder's mapping and the
 * ring's bound are tested apart. The context is shared, so each test uses names of its own and
 * reads only their events ({@code ?name=}).
 */
@SpringBootTest(classes = ResilienceEventsWebTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=resilience",
				"resilience.rate-limiters.partner.windows[0].limit=1",
				"resilience.rate-limiters.partner.windows[0].period=1h",
				"resilience.rate-limiters.queue.token-bucket.capacity=1",
				"resilience.rate-limiters.queue.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.queue.token-bucket.refill-period=150ms",
				"resilience.rate-limiters.queue.max-wait=5s", "resilience.rate-limiters.shared.store=redis",
				"resilience.rate-limiters.shared.windows[0].limit=100",
				"resilience.rate-limiters.shared.windows[0].period=1h", "resilience.retries.flaky.max-retries=2",
				"resilience.retries.flaky.delay=10ms", "resilience.retries.flaky.jitter=none", "resilience.retries.doomed.max-retries=2",
				"resilience.retries.doomed.delay=10ms", "resilience.polls.export.max-attempts=3",
				"resilience.polls.export.delay=10ms", "resilience.polls.export.backoff=fixed",
				"resilience.rate-limiters.mixed.token-bucket.capacity=1",
				"resilience.rate-limiters.mixed.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.mixed.token-bucket.refill-period=150ms",
				"resilience.rate-limiters.mixed.max-wait=5s", "resilience.retries.mixed.max-retries=1",
				"resilience.retries.mixed.delay=10ms", "resilience.pools.slots.max-size=1",
				"resilience.pools.slots.timeout=5s", "resilience.pools.slow.max-size=1",
				"resilience.redis.connect-timeout=30s", "resilience.redis.decision-timeout=5s" })
class ResilienceEventsWebTests {

	private static final RedisServer redis = RedisServer.start();

	private final HttpClient http = HttpClient.newHttpClient();

	private final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private Calls calls;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> "127.0.0.1");
		registry.add("spring.data.redis.port", redis::port);
		registry.add("resilience.redis.key-prefix", () -> "events-" + System.nanoTime() + ":");
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void rejectionShowsItsNumbersButNotItsKey() throws Exception {
		this.calls.partner("alice");
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> this.calls.partner("alice"));
		JsonNode body = get("/actuator/resilience/events?name=partner", 200);
		assertThat(body.get("bufferSize").asInt()).isEqualTo(100);
		JsonNode events = body.get("events");
		assertThat(events).hasSize(1);
		JsonNode event = events.get(0);
		assertThat(Instant.parse(event.get("time").asString())).isBetween(Instant.now().minusSeconds(60), Instant.now());
		assertThat(event.get("kind").asString()).isEqualTo("rejected");
		assertThat(event.get("name").asString()).isEqualTo("partner");
		assertThat(event.get("outcome").asString()).isEqualTo("rejected");
		assertThat(event.get("key").isNull()).isTrue();
		assertThat(yamlDuration(event.get("details").get("retryAfter").asString())).isPositive()
			.isLessThanOrEqualTo(Duration.ofHours(1));
		assertThat(event.get("details").get("concurrencyLimited").asBoolean()).isFalse();
		assertThat(body.toString()).doesNotContain("alice");
	}

	@Test
	void waitShowsHowLong() throws Exception {
		this.calls.queue();
		this.calls.queue();
		JsonNode events = get("/actuator/resilience/events?name=queue", 200).get("events");
		assertThat(events).hasSize(1);
		assertThat(events.get(0).get("kind").asString()).isEqualTo("waited");
		assertThat(events.get(0).get("outcome").asString()).isEqualTo("waited");
		assertThat(yamlDuration(events.get(0).get("details").get("wait").asString())).isPositive()
			.isLessThan(Duration.ofSeconds(1));
	}

	@Test
	void retriesShowEachAttemptAfterTheFirstNewestFirst() throws Exception {
		assertThat(this.calls.flaky(new AtomicInteger(1))).isEqualTo("ok");
		JsonNode events = get("/actuator/resilience/events?name=flaky", 200).get("events");
		assertThat(events).hasSize(1);
		JsonNode retry = events.get(0);
		assertThat(retry.get("kind").asString()).isEqualTo("retried");
		assertThat(retry.get("outcome").asString()).isEqualTo("returned");
		assertThat(retry.get("details").get("attempt").asInt()).isEqualTo(2);
		assertThat(retry.get("details").get("delay").asString()).isEqualTo("10ms");
	}

	@Test
	void exhaustedRetriesShowTheAttemptsAndTheError() throws Exception {
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(this.calls::doomed);
		JsonNode events = get("/actuator/resilience/events?name=doomed", 200).get("events");
		assertThat(kinds(events)).containsExactly("retries_exhausted", "retried", "retried");
		assertThat(events.get(0).get("outcome").asString()).isEqualTo("failed_with_retry");
		assertThat(events.get(0).get("details").get("attempts").asInt()).isEqualTo(3);
		assertThat(events.get(0).get("details").get("error").asString()).isEqualTo("IllegalStateException: doomed");
		assertThat(events.get(1).get("details").get("attempt").asInt()).isEqualTo(3);
		assertThat(events.get(1).get("outcome").asString()).isEqualTo("failed");
		assertThat(events.get(1).get("details").get("error").asString()).isEqualTo("IllegalStateException: doomed");
		assertThat(events.get(2).get("details").get("attempt").asInt()).isEqualTo(2);
	}

	@Test
	void exhaustedPollShowsItsAttempts() throws Exception {
		assertThatExceptionOfType(PollExhaustedException.class).isThrownBy(this.calls::export);
		JsonNode events = get("/actuator/resilience/events?name=export", 200).get("events");
		assertThat(events).hasSize(1);
		assertThat(events.get(0).get("kind").asString()).isEqualTo("poll_exhausted");
		assertThat(events.get(0).get("outcome").asString()).isEqualTo("exhausted");
		assertThat(events.get(0).get("details").get("attempts").asInt()).isEqualTo(3);
		assertThat(events.get(0).get("details").get("totalDelay").asString()).isEqualTo("20ms");
	}

	@Test
	void checkoutTimeoutShowsTheWait() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> this.calls.hold(entered, release));
		try {
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(CheckoutTimeoutException.class).isThrownBy(this.calls::quick);
		}
		finally {
			release.countDown();
		}
		holder.get(10, TimeUnit.SECONDS);
		JsonNode events = get("/actuator/resilience/events?name=slots", 200).get("events");
		assertThat(events).hasSize(1);
		assertThat(events.get(0).get("kind").asString()).isEqualTo("checkout_timeout");
		assertThat(events.get(0).get("outcome").asString()).isEqualTo("timeout");
		assertThat(yamlDuration(events.get(0).get("details").get("waited").asString()))
			.isGreaterThanOrEqualTo(Duration.ofMillis(200));
	}

	@Test
	void operationTimeoutShowsHowLongItRan() throws Exception {
		long called = System.nanoTime();
		assertThatExceptionOfType(OperationTimeoutException.class).isThrownBy(this.calls::slow);
		JsonNode events = get("/actuator/resilience/events?name=slow", 200).get("events");
		assertThat(events).hasSize(1);
		assertThat(events.get(0).get("kind").asString()).isEqualTo("operation_timeout");
		assertThat(events.get(0).get("outcome").asString()).isEqualTo("timeout");
		// One deadline covers checkout and work: the work ran from when it started (no earlier than
		// the connection was handed out) until the 100 ms deadline of the call, at least
		// (events round to the millisecond, so whole milliseconds of it)
		Duration ranAtLeast = Duration.ofMillis(100)
			.minusNanos(Calls.slowStarted.get() - called)
			.truncatedTo(ChronoUnit.MILLIS);
		assertThat(yamlDuration(events.get(0).get("details").get("duration").asString()))
			.isGreaterThanOrEqualTo(ranAtLeast)
			.isGreaterThan(Duration.ZERO);
	}

	@Test
	void redisKilledShowsStoreFailures() throws Exception {
		this.calls.shared();
		assertThat(get("/actuator/resilience/events?name=shared", 200).get("events")).isEmpty();
		redis.kill();
		this.calls.shared();
		JsonNode events = get("/actuator/resilience/events?name=shared&kind=store_failure", 200).get("events");
		assertThat(events).hasSize(1);
		JsonNode event = events.get(0);
		assertThat(event.get("kind").asString()).isEqualTo("store_failure");
		assertThat(event.get("outcome").asString()).isEqualTo("error");
		assertThat(event.get("details").get("store").asString()).isEqualTo("redis");
		assertThat(event.get("details").get("operation").asString()).isEqualTo("decision");
		assertThat(event.get("details").get("error").asString()).isNotBlank();
	}

	@Test
	void kindAndNameFilterTogether() throws Exception {
		// a rate limiter and a retry policy of the same name
		this.calls.mixedQueue();
		this.calls.mixedQueue();
		assertThat(this.calls.mixedRetry(new AtomicInteger(1))).isEqualTo("ok");
		JsonNode body = get("/actuator/resilience/events?name=mixed", 200);
		assertThat(kinds(body.get("events"))).containsExactly("retried", "waited");
		assertThat(body.get("recorded").asLong()).isGreaterThanOrEqualTo(2);
		assertThat(kinds(get("/actuator/resilience/events?name=mixed&kind=retried", 200).get("events")))
			.containsExactly("retried");
		assertThat(kinds(get("/actuator/resilience/events?name=mixed&kind=waited", 200).get("events")))
			.containsExactly("waited");
		JsonNode waits = get("/actuator/resilience/events?kind=waited", 200).get("events");
		assertThat(kinds(waits)).isNotEmpty().containsOnly("waited");
		assertThat(waits.findValuesAsString("name")).contains("mixed");
		assertThat(get("/actuator/resilience/events?name=mixed&kind=rejected", 200).get("events")).isEmpty();
	}

	@Test
	void unknownKindIsRefusedNamingTheAllowedOnes() throws Exception {
		assertThat(get("/actuator/resilience/events?kind=nope", 400).get("error").asString())
			.isEqualTo("Unknown event kind 'nope'; allowed: rejected, waited, pause, retried, retries_exhausted, "
					+ "poll_exhausted, checkout_timeout, operation_timeout, store_failure");
	}

	@Test
	void parametersOfTheOtherPathAreRefused() throws Exception {
		assertThat(get("/actuator/resilience/events?key=alice", 400).get("error").asString()).contains("'key'");
		assertThat(get("/actuator/resilience/partner?kind=rejected", 400).get("error").asString())
			.contains("'name' and 'kind'");
		assertThat(get("/actuator/resilience/partner?key=bob", 200).get("limiter").asString()).isEqualTo("partner");
	}

	/**
	 * An event's duration, written as application.yml takes it ({@code 250ms}, {@code 3s}), never
	 * ISO-8601.
	 */
	private static Duration yamlDuration(String text) {
		assertThat(text).matches("-?[0-9]+(ms|s|m|h|d)");
		return DurationStyle.detectAndParse(text);
	}

	private JsonNode get(String path, int status) throws IOException, InterruptedException {
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		return this.json.readTree(response.body());
	}

	private static List<String> kinds(JsonNode events) {
		List<String> kinds = new ArrayList<>();
		events.forEach((event) -> kinds.add(event.get("kind").asString()));
		return kinds;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class TestApplication {

		@Bean
		Calls calls() {
			return new Calls();
		}

	}

	static class Calls {

		@RateLimited(name = "partner", key = "#user")
		void partner(String user) {
		}

		@RateLimited(name = "queue")
		void queue() {
		}

		@RateLimited(name = "shared")
		void shared() {
		}

		@Retryable(name = "flaky")
		String flaky(AtomicInteger failures) {
			if (failures.getAndDecrement() > 0) {
				throw new IllegalStateException("flaky");
			}
			return "ok";
		}

		@RateLimited(name = "mixed")
		void mixedQueue() {
		}

		@Retryable(name = "mixed")
		String mixedRetry(AtomicInteger failures) {
			return flaky(failures);
		}

		@Retryable(name = "doomed")
		void doomed() {
			throw new IllegalStateException("doomed");
		}

		@PollUntil(name = "export", until = "#result")
		boolean export() {
			return false;
		}

		@WithConnection(pool = "slots")
		void hold(CountDownLatch entered, CountDownLatch release) {
			entered.countDown();
			try {
				release.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@WithConnection(pool = "slots", timeout = "200ms")
		void quick() {
		}

		/** When {@link #slow()} last started its work ({@link System#nanoTime()}); static, as the bean is a proxy. */
		static final AtomicLong slowStarted = new AtomicLong();

		@WithConnection(pool = "slow", timeout = "100ms")
		void slow() throws InterruptedException {
			slowStarted.set(System.nanoTime());
			Thread.sleep(2_000);
		}

	}

}
