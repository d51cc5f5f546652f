package dev.resilience.autoconfigure.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.jayway.jsonpath.JsonPath;
import org.jspecify.annotations.Nullable;

import org.junit.jupiter.api.Test;
import org.skyscreamer.jsonassert.JSONAssert;
import org.skyscreamer.jsonassert.JSONCompareMode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.poll.PollUntil;
import dev.resilience.pool.ConnectionFactory;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests over real HTTP that the endpoint writes settings as {@code application.yml} does, so that
 * what {@code GET} shows posts back unchanged, and {@code GET /actuator/resilience/methods}: each
 * annotated method with the retry, poll, rate limiters and pool it uses and the settings in force
 * once its annotation's attributes are laid over the named ones; key expressions, never keys.
 */
@SpringBootTest(classes = ResilienceEndpointNotationTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=resilience",
				"management.endpoint.resilience.access=unrestricted",
				"resilience.rate-limiters.rt-limiter.token-bucket.capacity=20",
				"resilience.rate-limiters.rt-limiter.token-bucket.refill-tokens=5",
				"resilience.rate-limiters.rt-limiter.token-bucket.refill-period=1530ms",
				"resilience.rate-limiters.rt-limiter.token-bucket.refill-strategy=interval",
				"resilience.rate-limiters.rt-limiter.windows[0].limit=10",
				"resilience.rate-limiters.rt-limiter.windows[0].period=2m",
				"resilience.rate-limiters.rt-limiter.window-algorithm=counter",
				"resilience.rate-limiters.rt-limiter.max-concurrent=3",
				"resilience.rate-limiters.rt-limiter.lease-timeout=90s",
				"resilience.rate-limiters.rt-limiter.max-wait=250ms",
				"resilience.rate-limiters.rt-limiter.pause-on-throttle.enabled=true",
				"resilience.rate-limiters.rt-limiter.pause-on-throttle.statuses=429,503",
				"resilience.rate-limiters.rt-limiter.pause-on-throttle.default-pause=2s",
				"resilience.rate-limiters.rt-limiter.pause-on-throttle.max-pause=1h",
				"resilience.rate-limiters.rt-limiter.pause-on-throttle.resume-jitter=0.2",
				"resilience.retries.rt-retry.max-retries=4", "resilience.retries.rt-retry.delay=1530ms",
				"resilience.retries.rt-retry.backoff=exponential", "resilience.retries.rt-retry.multiplier=3",
				"resilience.retries.rt-retry.max-delay=1m", "resilience.retries.rt-retry.jitter=decorrelated",
				"resilience.retries.rt-retry.max-duration=2m", "resilience.retries.rt-retry.retry-on=java.io.IOException",
				"resilience.retries.rt-retry.no-retry-on=java.io.FileNotFoundException",
				"resilience.retries.rt-retry.budget.ratio=0.2", "resilience.polls.rt-poll.max-attempts=-1",
				"resilience.polls.rt-poll.timeout=90s", "resilience.polls.rt-poll.backoff=exponential",
				"resilience.polls.rt-poll.delay=250ms", "resilience.polls.rt-poll.max-delay=1530ms",
				"resilience.polls.rt-poll.ignore-exceptions=true", "resilience.pools.rt-pool.max-size=3",
				"resilience.pools.rt-pool.min-idle=1", "resilience.pools.rt-pool.timeout=1530ms",
				"resilience.pools.rt-pool.max-idle-time=2m", "resilience.pools.rt-pool.factory=sessions",
				"resilience.rate-limiters.partner-api.windows[0].limit=25",
				"resilience.rate-limiters.partner-api.windows[0].period=5s",
				"resilience.rate-limiters.global.token-bucket.refill-tokens=100",
				"resilience.rate-limiters.global.max-wait=250ms", "resilience.retries.partner.max-retries=5",
				"resilience.retries.partner.delay=1530ms", "resilience.retries.partner.retry-on=java.lang.Exception",
				"resilience.retries.partner.jitter=none", "resilience.polls.export.max-attempts=10",
				"resilience.polls.export.delay=100ms", "resilience.polls.export.timeout=30s",
				"resilience.pools.llm.max-size=2", "resilience.pools.llm.timeout=30s" })
class ResilienceEndpointNotationTests {

	private static final String CLIENT = Client.class.getName();

	/** Fields that show what a pool or a budget holds now. */
	private static final Set<String> NOT_SETTINGS = Set.of("active", "idle", "pending", "abandoned", "available");

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private Client client;

	@Test
	void getShouldWriteSettingsAsApplicationYmlDoes() throws Exception {
		HttpResponse<String> response = get("/actuator/resilience");
		assertThat(response.statusCode()).isEqualTo(200);
		String body = response.body();
		JSONAssert.assertEquals("""
				{"store": "memory",
				 "tokenBucket": {"capacity": 20, "refillTokens": 5, "refillPeriod": "1530ms", "refillStrategy": "interval"},
				 "windows": [{"limit": 10, "period": "2m"}], "windowAlgorithm": "counter", "maxConcurrent": 3,
				 "adaptiveConcurrency": null, "leaseTimeout": "90s", "maxWait": "250ms", "maxKeys": 1000000,
				 "onStoreFailure": "fail-open",
				 "pauseOnThrottle": {"enabled": true, "statuses": [429, 503], "defaultPause": "2s", "maxPause": "1h",
				   "resumeJitter": 0.2},
				 "httpClient": {"hosts": [], "key": null}}
				""", json(JsonPath.read(body, "$.rateLimiters['rt-limiter']")), JSONCompareMode.STRICT);
		JSONAssert.assertEquals("""
				{"maxRetries": 4, "backoff": "exponential", "delay": "1530ms", "multiplier": 3.0, "maxDelay": "1m",
				 "jitter": "decorrelated", "maxDuration": "2m", "retryOn": ["java.io.IOException"],
				 "noRetryOn": ["java.io.FileNotFoundException"],
				 "budget": {"ratio": 0.2, "window": "10s", "minRetriesPerSecond": 10, "available": 100}}
				""", json(JsonPath.read(body, "$.retries['rt-retry']")), JSONCompareMode.STRICT);
		JSONAssert.assertEquals("""
				{"maxAttempts": -1, "delay": "250ms", "backoff": "exponential", "multiplier": 2.0, "maxDelay": "1530ms",
				 "timeout": "90s", "ignoreExceptions": true}
				""", json(JsonPath.read(body, "$.polls['rt-poll']")), JSONCompareMode.STRICT);
		JSONAssert.assertEquals("""
				{"maxSize": 3, "minIdle": 1, "timeout": "1530ms", "validateOnCheckout": false, "maxIdleTime": "2m",
				 "active": 0, "idle": 1, "pending": 0, "abandoned": 0}
				""", json(JsonPath.read(body, "$.pools['rt-pool']")), JSONCompareMode.STRICT);
	}

	/**
	 * Every setting GET shows, posted back unchanged under its property's name (the field's name in
	 * kebab case), is taken and changes nothing. What a pool holds now and what a budget allows now
	 * are not settings. GET also shows the value of a setting that cannot take effect for the entry
	 * (here {@code on-store-failure} of an in-memory limiter), which a POST refuses as startup does.
	 */
	@Test
	void everySettingGetShowsShouldPostBackUnchanged() throws Exception {
		Map<String, String> named = Map.of("rateLimiters", "rt-limiter", "retries", "rt-retry", "polls", "rt-poll",
				"pools", "rt-pool");
		for (Map.Entry<String, String> each : named.entrySet()) {
			String path = "$." + each.getKey() + "['" + each.getValue() + "']";
			Map<String, Object> before = JsonPath.read(get("/actuator/resilience").body(), path);
			Map<String, String> properties = new LinkedHashMap<>();
			flatten("", before, properties);
			if (each.getKey().equals("rateLimiters")) {
				assertThat(properties.remove("on-store-failure")).isEqualTo("fail-open");
			}
			HttpResponse<String> posted = post(each.getValue(), json(Map.of("properties", properties)));
			assertThat(posted.statusCode()).as(each.getValue() + ": " + posted.body()).isEqualTo(200);
			Map<String, Object> after = JsonPath.read(get("/actuator/resilience").body(), path);
			assertThat(after).as(each.getValue()).isEqualTo(before);
		}
	}

	@Test
	void getMethodsShouldShowEachMethodWithTheSettingsInForceAfterItsAnnotation() throws Exception {
		HttpResponse<String> response = get("/actuator/resilience/methods");
		assertThat(response.statusCode()).isEqualTo(200);
		JSONAssert.assertEquals("""
				{"methods": {
				  "%1$s.fetch(String, long)": {
				    "retry": {"name": "partner", "policy": "partner",
				      "settings": {"maxRetries": 2, "backoff": "exponential", "delay": "1530ms", "multiplier": 2.0,
				        "maxDelay": "10s", "jitter": "none", "maxDuration": null, "retryOn": ["java.io.IOException"],
				        "noRetryOn": [], "budget": null},
				      "retryIf": null, "retryIfResult": null, "fallbackMethod": "fallback"},
				    "poll": {"name": "export", "configured": "export",
				      "settings": {"maxAttempts": 10, "delay": "100ms", "backoff": "linear", "multiplier": 2.0,
				        "maxDelay": "10s", "timeout": "1m", "ignoreExceptions": false},
				      "until": "#result == 'DONE'"},
				    "rateLimits": [
				      {"limiter": "partner-api", "key": "#customerId", "cost": 2, "maxWait": "0ms"},
				      {"limiter": "global", "key": null, "cost": 1, "maxWait": "1s"}],
				    "connection": {"pool": "llm", "timeout": "15s"}},
				  "%1$s.plain()": {
				    "retry": {"name": "Client.plain", "policy": null,
				      "settings": {"maxRetries": 3, "backoff": "exponential", "delay": "100ms", "multiplier": 2.0,
				        "maxDelay": "10s", "jitter": "full", "maxDuration": null, "retryOn": ["java.lang.Exception"],
				        "noRetryOn": [], "budget": null},
				      "retryIf": "#exception.message != 'final'", "retryIfResult": null, "fallbackMethod": null},
				    "poll": null, "rateLimits": [], "connection": null},
				  "%1$s.pooled()": {
				    "retry": null, "poll": null, "rateLimits": [], "connection": {"pool": "llm", "timeout": "30s"}},
				  "%1$s.byUser(String)": {
				    "retry": null, "poll": null,
				    "rateLimits": [{"limiter": "global", "key": "#user", "cost": 1, "maxWait": "250ms"}],
				    "connection": null}
				}}
				""".formatted(CLIENT), response.body(), JSONCompareMode.STRICT);
	}

	/** A key expression is code and is shown; a key a call evaluated is data and never is. */
	@Test
	void getMethodsShouldNeverShowAKey() throws Exception {
		this.client.byUser("alice-4711");
		HttpResponse<String> response = get("/actuator/resilience/methods");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("#user").doesNotContain("alice-4711");
	}

	@Test
	void getMethodsShouldRefuseParameters() throws Exception {
		HttpResponse<String> response = get("/actuator/resilience/methods?key=alice");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.body()).contains("GET /actuator/resilience/methods takes no parameters");
	}

	/** The properties of a setting shown: its path with each field's name in kebab case. */
	private static void flatten(String path, @Nullable Object value, Map<String, String> properties) {
		if (value instanceof Map<?, ?> map) {
			map.forEach((field, nested) -> {
				if (!NOT_SETTINGS.contains(field)) {
					String property = ((String) field).replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
					flatten(path.isEmpty() ? property : path + "." + property, nested, properties);
				}
			});
		}
		else if (value instanceof List<?> list) {
			for (int i = 0; i < list.size(); i++) {
				flatten(path + "[" + i + "]", list.get(i), properties);
			}
		}
		else if (value != null) {
			properties.put(path, value.toString());
		}
	}

	private static String json(Object value) {
		return JsonPath.parse(value).jsonString();
	}

	private HttpResponse<String> post(String name, String body) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/resilience/" + name))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	/** Every annotation, and a retry policy's list narrowed by the annotation. */
	static class Client {

		@Retryable(name = "partner", maxRetries = 2, retryOn = IOException.class, fallbackMethod = "fallback")
		@PollUntil(name = "export", until = "#result == 'DONE'", timeout = "1m")
		@RateLimited(name = "partner-api", key = "#customerId", cost = 2)
		@RateLimited(name = "global", maxWait = "1s")
		@WithConnection(pool = "llm", timeout = "15s")
		public String fetch(String customerId, long orderId) {
			return "DONE";
		}

		public String fallback(String customerId, long orderId, IOException failure) {
			return "cached";
		}

		@Retryable(retryIf = "#exception.message != 'final'")
		public void plain() {
		}

		@WithConnection(pool = "llm")
		public String pooled() {
			return "done";
		}

		@RateLimited(name = "global", key = "#user")
		public String byUser(String user) {
			return user;
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(TestTimeConfiguration.class)
	static class TestApplication {

		@Bean
		Client client() {
			return new Client();
		}

		@Bean
		ConnectionFactory<StringBuilder> sessions() {
			return StringBuilder::new;
		}

	}

}
