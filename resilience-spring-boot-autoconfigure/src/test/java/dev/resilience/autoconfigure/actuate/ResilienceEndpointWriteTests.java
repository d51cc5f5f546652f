package dev.resilience.autoconfigure.actuate;

import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.pool.WithConnectionMethods;
import dev.resilience.poll.PollExhaustedException;
import dev.resilience.poll.PollUntil;
import dev.resilience.pool.ConnectionLease;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests the {@code resilience} endpoint's write operation over real HTTP (docs/runtime-changes.md):
 * {@code POST /actuator/resilience/{name}} changes a rate limiter's, retry policy's, poll's or
 * pool's settings as its properties would, from the next decision, each key keeping its state; a
 * wrong change answers 400 naming the property and the old settings stay. The context is shared,
 * so each test changes its own limiter, policy, poll or pool.
 */
@SpringBootTest(classes = ResilienceEndpointWriteTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=resilience",
				"management.endpoint.resilience.access=unrestricted",
				"resilience.rate-limiters.raised.windows[0].limit=3",
				"resilience.rate-limiters.raised.windows[0].period=1h",
				"resilience.rate-limiters.refused.windows[0].limit=3",
				"resilience.rate-limiters.refused.windows[0].period=1h",
				"resilience.rate-limiters.bucket.token-bucket.capacity=10",
				"resilience.rate-limiters.bucket.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.bucket.token-bucket.refill-period=1h",
				"resilience.rate-limiters.turned.max-concurrent=2",
				"resilience.rate-limiters.tuned.max-concurrent=adaptive",
				"resilience.rate-limiters.tuned.adaptive-concurrency.initial-limit=4",
				"resilience.rate-limiters.unlimited.windows[0].limit=100",
				"resilience.rate-limiters.costly.token-bucket.capacity=10",
				"resilience.rate-limiters.costly.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.costly.token-bucket.refill-period=1h",
				"resilience.rate-limiters.unlimited.windows[0].period=1h",
				"resilience.retries.flaky.max-retries=1", "resilience.retries.flaky.delay=1s",
				"resilience.polls.export.max-attempts=2", "resilience.polls.export.delay=1s",
				"resilience.pools.workers.max-size=1", "resilience.pools.workers.timeout=10s" })
class ResilienceEndpointWriteTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private RateLimiterRegistry registry;

	@Autowired
	private Calls calls;

	@Test
	void postShouldRaiseAWindowLimitKeepingTheEntriesCounted() throws Exception {
		RateLimiter limiter = this.registry.get("raised");
		assertThat(permitted(limiter, 5)).isEqualTo(3);
		HttpResponse<String> response = post("raised", "{\"properties\": {\"windows[0].limit\": \"5\", \"max-wait\": \"1s\"}}");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat((Integer) JsonPath.read(response.body(), "$.settings.windows[0].limit")).isEqualTo(5);
		assertThat((String) JsonPath.read(response.body(), "$.settings.maxWait")).isEqualTo("1s");
		assertThat(permitted(limiter, 5)).isEqualTo(2);
		assertThat(limiter.getSettings().maxWait()).isEqualTo(Duration.ofSeconds(1));
		// a later change keeps the values set before
		assertThat(post("raised", "{\"properties\": {\"windows[0].limit\": \"6\"}}").statusCode()).isEqualTo(200);
		assertThat(limiter.getSettings().maxWait()).isEqualTo(Duration.ofSeconds(1));
		assertThat(permitted(limiter, 5)).isEqualTo(1);
	}

	@Test
	void postShouldKeepABucketsTokensCappedAtANewCapacity() throws Exception {
		RateLimiter limiter = this.registry.get("bucket");
		assertThat(permitted(limiter, 2)).isEqualTo(2);
		assertThat(post("bucket", "{\"properties\": {\"token-bucket.capacity\": \"20\"}}").statusCode()).isEqualTo(200);
		assertThat(limiter.inspect("").getRemaining()).isEqualTo(8);
		assertThat(post("bucket", "{\"properties\": {\"token-bucket.capacity\": \"5\"}}").statusCode()).isEqualTo(200);
		assertThat(limiter.inspect("").getRemaining()).isEqualTo(5);
		assertThat(permitted(limiter, 6)).isEqualTo(5);
	}

	@Test
	void postShouldRefuseAWrongChangeNamingThePropertyAndKeepTheOldSettings() throws Exception {
		RateLimiter limiter = this.registry.get("refused");
		assertThat(permitted(limiter, 1)).isEqualTo(1);
		HttpResponse<String> invalid = post("refused", "{\"properties\": {\"windows[0].limit\": \"0\"}}");
		assertThat(invalid.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(invalid.body(), "$.error")).startsWith("resilience.rate-limiters.refused")
			.contains("limit");
		HttpResponse<String> unbindable = post("refused", "{\"properties\": {\"max-wait\": \"soon\"}}");
		assertThat(unbindable.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(unbindable.body(), "$.error"))
			.startsWith("resilience.rate-limiters.refused.max-wait cannot be 'soon'");
		HttpResponse<String> unknown = post("refused", "{\"properties\": {\"windows[0].limmit\": \"5\"}}");
		assertThat(unknown.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(unknown.body(), "$.error"))
			.isEqualTo("resilience.rate-limiters.refused.windows[0].limmit does not exist");
		HttpResponse<String> reshaped = post("refused", "{\"properties\": {\"windows[1].limit\": \"5\", \"windows[1].period\": \"1d\"}}");
		assertThat(reshaped.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(reshaped.body(), "$.error"))
			.startsWith("resilience.rate-limiters.refused.windows cannot change from 1 windows to 2 windows");
		assertThat(limiter.getSettings().windows()).hasSize(1);
		assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(3);
		assertThat(permitted(limiter, 3)).isEqualTo(2);
		assertThat(post("nobody", "{\"properties\": {\"max-wait\": \"1s\"}}").statusCode()).isEqualTo(404);
	}

	@Test
	void postThatAnAnnotatedMethodRefusesShouldNeverBeLiveAndKeepTheBucketExactly() throws Exception {
		RateLimiter limiter = this.registry.get("costly");
		RateLimiterSettings before = limiter.getSettings();
		assertThat(permitted(limiter, 1)).isEqualTo(1);
		// Applied, even briefly, capacity 2 would have cut the bucket's 9 tokens to 2 for good.
		HttpResponse<String> refused = post("costly", "{\"properties\": {\"token-bucket.capacity\": \"2\"}}");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(refused.body(), "$.error"))
			.startsWith("resilience.rate-limiters.costly.token-bucket.capacity cannot take this value: "
					+ "@RateLimited on Calls.costly(): cost 3 is invalid for rate limiter 'costly'");
		assertThat(limiter.getSettings()).isSameAs(before);
		assertThat(limiter.inspect("").getRemaining()).isEqualTo(9);
		assertThat(permitted(limiter, 10)).isEqualTo(9);
	}

	@Test
	void postShouldTurnAFixedMaxConcurrentAdaptiveAndBackKeepingThePermitsHeld(@Autowired TestTicker ticker)
			throws Exception {
		RateLimiter limiter = this.registry.get("turned");
		Permit first = limiter.acquire("k", 1);
		Permit second = limiter.acquire("k", 1);
		HttpResponse<String> adaptive = post("turned",
				"{\"properties\": {\"max-concurrent\": \"ADAPTIVE\", \"adaptive-concurrency.initial-limit\": \"3\"}}");
		assertThat(adaptive.statusCode()).isEqualTo(200);
		assertThat(limiter.getSettings().adaptiveConcurrency()).isNotNull();
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
		assertThat(limiter.inspect("k").getMaxConcurrent()).as("the key's first probe, at min-limit").isEqualTo(1);
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> limiter.acquire("k", 1));
		first.close();
		second.close();
		AdaptiveProbe.run(limiter, "k", ticker::advance, Duration.ofMillis(10));
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(3);
		first = limiter.acquire("k", 1);
		second = limiter.acquire("k", 1);
		Permit third = limiter.acquire("k", 1);
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> limiter.acquire("k", 1));
		first.close();
		// back to a number: the adaptive-concurrency values set before are set aside, not refused
		HttpResponse<String> fixed = post("turned", "{\"properties\": {\"max-concurrent\": \"2\"}}");
		assertThat(fixed.statusCode()).as(fixed.body()).isEqualTo(200);
		assertThat(limiter.getSettings().adaptiveConcurrency()).isNull();
		assertThat(limiter.getSettings().maxConcurrent()).isEqualTo(2);
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> limiter.acquire("k", 1));
		second.close();
		third.close();
		third.close();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		// and adaptive again: the values set aside come back
		assertThat(post("turned", "{\"properties\": {\"max-concurrent\": \"adaptive\"}}").statusCode()).isEqualTo(200);
		assertThat(limiter.getSettings().adaptiveConcurrency().initialLimit()).isEqualTo(3);
	}

	@Test
	void postShouldChangeAdaptiveConcurrencyAndRefuseABadValueNamingTheProperty() throws Exception {
		RateLimiter limiter = this.registry.get("tuned");
		RateLimiterSettings before = limiter.getSettings();
		HttpResponse<String> minLimit = post("tuned", "{\"properties\": {\"adaptive-concurrency.min-limit\": \"0\"}}");
		assertThat(minLimit.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(minLimit.body(), "$.error"))
			.startsWith("resilience.rate-limiters.tuned.adaptive-concurrency.min-limit");
		HttpResponse<String> lots = post("tuned", "{\"properties\": {\"max-concurrent\": \"lots\"}}");
		assertThat(lots.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(lots.body(), "$.error"))
			.startsWith("resilience.rate-limiters.tuned.max-concurrent").contains("'adaptive'");
		HttpResponse<String> both = post("tuned",
				"{\"properties\": {\"max-concurrent\": \"5\", \"adaptive-concurrency.max-limit\": \"50\"}}");
		assertThat(both.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(both.body(), "$.error"))
			.startsWith("resilience.rate-limiters.tuned.adaptive-concurrency");
		assertThat(limiter.getSettings()).isEqualTo(before);
		HttpResponse<String> raised = post("tuned", "{\"properties\": {\"adaptive-concurrency.max-limit\": \"50\", "
				+ "\"adaptive-concurrency.algorithm\": \"vegas\"}}");
		assertThat(raised.statusCode()).isEqualTo(200);
		assertThat(limiter.getSettings().adaptiveConcurrency())
			.isEqualTo(new AdaptiveConcurrencySettings(AdaptiveConcurrencySettings.Algorithm.VEGAS, 4, 1, 50));
		assertThat(limiter.getSettings().maxConcurrent()).isEqualTo(50);
	}

	@Test
	void postShouldRefuseTurningNoMaxConcurrentAdaptive() throws Exception {
		RateLimiter limiter = this.registry.get("unlimited");
		HttpResponse<String> response = post("unlimited", "{\"properties\": {\"max-concurrent\": \"adaptive\"}}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(response.body(), "$.error"))
			.startsWith("resilience.rate-limiters.unlimited.max-concurrent cannot change from 0 to adaptive at run time");
		assertThat(limiter.getSettings().maxConcurrent()).isZero();
		assertThat(limiter.getSettings().adaptiveConcurrency()).isNull();
	}

	@Test
	void postShouldChangeARetryPolicyForTheAnnotatedMethods() throws Exception {
		assertThatIllegalStateException().isThrownBy(this.calls::flaky);
		assertThat(this.calls.flakyCalls().getAndSet(0)).isEqualTo(2);
		HttpResponse<String> response = post("flaky", "{\"properties\": {\"max-retries\": \"3\"}}");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat((Integer) JsonPath.read(response.body(), "$.settings.maxRetries")).isEqualTo(3);
		assertThatIllegalStateException().isThrownBy(this.calls::flaky);
		assertThat(this.calls.flakyCalls().get()).isEqualTo(4);
		HttpResponse<String> invalid = post("flaky", "{\"properties\": {\"max-delay\": \"1ms\"}}");
		assertThat(invalid.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(invalid.body(), "$.error")).contains("resilience.retries.flaky")
			.contains("max-delay");
	}

	@Test
	void postShouldChangeAPollForTheAnnotatedMethods() throws Exception {
		assertThatExceptionOfType(PollExhaustedException.class).isThrownBy(this.calls::export);
		assertThat(this.calls.exportCalls().getAndSet(0)).isEqualTo(2);
		assertThat(post("export", "{\"properties\": {\"max-attempts\": \"4\"}}").statusCode()).isEqualTo(200);
		assertThatExceptionOfType(PollExhaustedException.class).isThrownBy(this.calls::export);
		assertThat(this.calls.exportCalls().get()).isEqualTo(4);
		HttpResponse<String> invalid = post("export", "{\"properties\": {\"max-attempts\": \"0\"}}");
		assertThat(invalid.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(invalid.body(), "$.error")).contains("resilience.polls.export")
			.contains("max-attempts");
	}

	@Test
	void postShouldResizeAPoolAndChangeItsTimeout(@Autowired ConnectionPool<?> workers,
			@Autowired WithConnectionMethods methods) throws Exception {
		Method pooled = Calls.class.getMethod("pooled");
		assertThat(this.calls.pooled()).isEqualTo("done");
		assertThat(methods.get(pooled, Calls.class).timeout()).isEqualTo(Duration.ofSeconds(10));
		ConnectionLease<?> held = workers.checkoutAsync(Duration.ofSeconds(30)).get(10, TimeUnit.SECONDS);
		CompletableFuture<? extends ConnectionLease<?>> waiting = workers.checkoutAsync(Duration.ofSeconds(30));
		try {
			assertThat(waiting).isNotDone();
			assertThat(workers.getStats().pending()).isEqualTo(1);
			HttpResponse<String> response = post("workers", "{\"properties\": {\"max-size\": \"2\", \"timeout\": \"20s\"}}");
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat((Integer) JsonPath.read(response.body(), "$.settings.maxSize")).isEqualTo(2);
			// the caller waiting for a connection gets one from the larger pool
			waiting.get(10, TimeUnit.SECONDS).release();
			assertThat(methods.get(pooled, Calls.class).timeout()).isEqualTo(Duration.ofSeconds(20));
		}
		finally {
			held.release();
		}
		HttpResponse<String> invalid = post("workers", "{\"properties\": {\"max-size\": \"0\"}}");
		assertThat(invalid.statusCode()).isEqualTo(400);
		assertThat((String) JsonPath.read(invalid.body(), "$.error")).contains("resilience.pools.workers")
			.contains("max-size");
		assertThat(workers.getSettings().maxSize()).isEqualTo(2);
	}

	private HttpResponse<String> post(String name, String body) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/resilience/" + name))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static int permitted(RateLimiter limiter, int calls) {
		int permitted = 0;
		for (int i = 0; i < calls; i++) {
			if (limiter.tryAcquire("", 1).isPermitted()) {
				permitted++;
			}
		}
		return permitted;
	}

	/** Annotated methods that count their calls (read through methods: the bean is a proxy). */
	static class Calls {

		private final AtomicInteger flaky = new AtomicInteger();

		private final AtomicInteger export = new AtomicInteger();

		public AtomicInteger flakyCalls() {
			return this.flaky;
		}

		public AtomicInteger exportCalls() {
			return this.export;
		}

		@Retryable(name = "flaky")
		public void flaky() {
			this.flaky.incrementAndGet();
			throw new IllegalStateException("down");
		}

		@PollUntil(name = "export")
		public Object export() {
			this.export.incrementAndGet();
			return null;
		}

		@RateLimited(name = "costly", cost = 3)
		public void costly() {
		}

		@WithConnection(pool = "workers")
		public String pooled() {
			return "done";
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(TestTimeConfiguration.class)
	static class TestApplication {

		@Bean
		Calls calls() {
			return new Calls();
		}

	}

}
