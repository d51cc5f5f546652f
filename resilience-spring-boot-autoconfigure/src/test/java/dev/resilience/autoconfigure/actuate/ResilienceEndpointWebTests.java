package dev.resilience.autoconfigure.actuate;

import java.time.Duration;
import java.time.Instant;

import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.test.json.JsonCompareMode;
import org.springframework.test.web.servlet.MockMvc;

import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimitedAdvisor;
import dev.resilience.autoconfigure.ratelimit.RateLimiterMetrics;
import dev.resilience.autoconfigure.web.RateLimitExceptionHandler;
import dev.resilience.autoconfigure.web.RateLimitResponseHeaders;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.aMapWithSize;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Tests the {@code resilience} endpoint over HTTP, in a Spring Boot application whose
 * auto-configuration comes from the starter's {@code AutoConfiguration.imports}, with write
 * access granted. The context is shared by the tests, so each uses its own key.
 */
@SpringBootTest(classes = ResilienceEndpointWebTests.TestApplication.class,
		properties = { "management.endpoints.web.exposure.include=resilience",
				"management.endpoint.resilience.access=unrestricted",
				"resilience.rate-limiters.partner-api.windows[0].limit=3",
				"resilience.rate-limiters.partner-api.windows[0].period=5s",
				"resilience.rate-limiters.bucket.token-bucket.refill-tokens=5",
				"resilience.rate-limiters.bucket.token-bucket.refill-period=2s",
				"resilience.rate-limiters.bucket.max-wait=250ms",
				"resilience.rate-limiters.metered.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.paused.windows[0].limit=3", "resilience.rate-limiters.paused.windows[0].period=5s",
				"resilience.rate-limiters.paused.pause-on-throttle.enabled=true",
				"resilience.rate-limiters.paused.pause-on-throttle.statuses=429",
				"resilience.rate-limiters.paused.pause-on-throttle.max-pause=1m",
				"resilience.rate-limiters.paused.http-client.hosts=api.partner.example",
				"resilience.rate-limiters.llm.max-concurrent=adaptive",
				"resilience.rate-limiters.llm.adaptive-concurrency.initial-limit=6",
				"resilience.rate-limiters.llm.adaptive-concurrency.max-limit=30" })
@AutoConfigureMockMvc
class ResilienceEndpointWebTests {

	@Autowired
	private MockMvc mvc;

	@Autowired
	private RateLimiterRegistry registry;

	@Test
	void applicationShouldAutoConfigureEveryPart(@Autowired ApplicationContext context) {
		assertThat(context.getBeansOfType(RateLimitedAdvisor.class)).hasSize(1);
		assertThat(context.getBeansOfType(RateLimiterMetrics.class)).hasSize(1);
		assertThat(context.getBeansOfType(RateLimitExceptionHandler.class)).hasSize(1);
		assertThat(context.getBeansOfType(RateLimitResponseHeaders.class)).hasSize(1);
		assertThat(context.getBeansOfType(ResilienceEndpoint.class)).hasSize(1);
		assertThat(context.getBeansOfType(ResilienceEndpointWebExtension.class)).hasSize(1);
		// The registry reports to the application's own meter registry. No other test uses
		// "metered", so the keys it holds are those taken here; the shared bucket (key "") is not
		// counted among them.
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		Gauge keys = meters.get("resilience.ratelimiter.keys").tags("name", "metered", "store", "memory").gauge();
		this.registry.get("metered").tryAcquire("", 1);
		assertThat(meters.get("resilience.ratelimiter.calls")
			.tags("name", "metered", "outcome", "permitted", "store", "memory")
			.counter()
			.count()).isEqualTo(1.0);
		assertThat(keys.value()).isZero();
		this.registry.get("metered").tryAcquire("acme", 1);
		assertThat(keys.value()).isEqualTo(1.0);
	}

	@Test
	void getShouldListLimitersWithSettings() throws Exception {
		this.mvc.perform(get("/actuator/resilience"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.rateLimiters", aMapWithSize(5)))
			.andExpect(jsonPath("$.rateLimiters.partner-api.store").value("memory"))
			.andExpect(jsonPath("$.rateLimiters.partner-api.tokenBucket").value(nullValue()))
			.andExpect(jsonPath("$.rateLimiters.partner-api.windows.length()").value(1))
			.andExpect(jsonPath("$.rateLimiters.partner-api.windows[0].limit").value(3))
			.andExpect(jsonPath("$.rateLimiters.partner-api.windows[0].period").value("5s"))
			.andExpect(jsonPath("$.rateLimiters.partner-api.windowAlgorithm").value("log"))
			.andExpect(jsonPath("$.rateLimiters.partner-api.maxConcurrent").value(0))
			.andExpect(jsonPath("$.rateLimiters.partner-api.leaseTimeout").value("1m"))
			.andExpect(jsonPath("$.rateLimiters.partner-api.maxWait").value("0ms"))
			.andExpect(jsonPath("$.rateLimiters.partner-api.maxKeys").value(1_000_000))
			.andExpect(jsonPath("$.rateLimiters.partner-api.onStoreFailure").value("fail-open"))
			.andExpect(jsonPath("$.rateLimiters.bucket.tokenBucket.capacity").value(5))
			.andExpect(jsonPath("$.rateLimiters.bucket.tokenBucket.refillTokens").value(5))
			.andExpect(jsonPath("$.rateLimiters.bucket.tokenBucket.refillPeriod").value("2s"))
			.andExpect(jsonPath("$.rateLimiters.bucket.tokenBucket.refillStrategy").value("greedy"))
			.andExpect(jsonPath("$.rateLimiters.bucket.windows").isEmpty())
			.andExpect(jsonPath("$.rateLimiters.bucket.maxWait").value("250ms"));
	}

	@Test
	void getKeyShouldShowStateWithoutConsuming() throws Exception {
		this.registry.get("partner-api").tryAcquire("alice", 1);
		for (int i = 0; i < 2; i++) {
			this.mvc.perform(get("/actuator/resilience/partner-api").param("key", "alice"))
				.andExpect(status().isOk())
				.andExpect(content().json("""
						{"limiter":"partner-api","key":"alice","remaining":2,"limit":3,"inFlight":0,"maxConcurrent":0,
						 "adaptiveLimit":null,"paused-until":null,"quotas":[{"policy":"partner-api-5s","quota":3,"window":"5s","remaining":2,"reset":"5s"}]}
						""", JsonCompareMode.STRICT));
		}
		assertThat(this.registry.get("partner-api").inspect("alice").getRemaining()).isEqualTo(2);
	}

	@Test
	void getShouldListPauseOnThrottleAndHttpClientSettings() throws Exception {
		this.mvc.perform(get("/actuator/resilience"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.rateLimiters.partner-api.pauseOnThrottle.enabled").value(false))
			.andExpect(jsonPath("$.rateLimiters.partner-api.pauseOnThrottle.statuses[*]").value(contains(429, 503)))
			.andExpect(jsonPath("$.rateLimiters.partner-api.pauseOnThrottle.defaultPause").value("1s"))
			.andExpect(jsonPath("$.rateLimiters.partner-api.pauseOnThrottle.maxPause").value("10m"))
			.andExpect(jsonPath("$.rateLimiters.partner-api.pauseOnThrottle.resumeJitter").value(0.1))
			.andExpect(jsonPath("$.rateLimiters.partner-api.httpClient.hosts").isEmpty())
			.andExpect(jsonPath("$.rateLimiters.partner-api.httpClient.key").value(nullValue()))
			.andExpect(jsonPath("$.rateLimiters.paused.pauseOnThrottle.enabled").value(true))
			.andExpect(jsonPath("$.rateLimiters.paused.pauseOnThrottle.statuses[*]").value(contains(429)))
			.andExpect(jsonPath("$.rateLimiters.paused.pauseOnThrottle.maxPause").value("1m"))
			.andExpect(jsonPath("$.rateLimiters.paused.httpClient.hosts[*]").value(contains("api.partner.example")));
	}

	/**
	 * A paused key shows the instant its pause ends; the pause is an event of kind {@code pause},
	 * whose key stays hidden (keys are not included here).
	 */
	@Test
	void getKeyOfAPausedKeyShouldShowWhenThePauseEndsAndThePauseShouldBeAnEvent() throws Exception {
		// The test's ticker stands still, so the pause's rest is 30 s whenever it is read.
		Instant before = Instant.now();
		this.registry.get("paused").pause("dave", Duration.ofSeconds(30));
		String body = this.mvc.perform(get("/actuator/resilience/paused").param("key", "dave"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.remaining").value(0))
			.andExpect(jsonPath("$.quotas[0].remaining").value(0))
			.andReturn()
			.getResponse()
			.getContentAsString();
		Instant after = Instant.now();
		Instant pausedUntil = Instant.parse(JsonPath.read(body, "$['paused-until']"));
		assertThat(pausedUntil).isBetween(before.plusSeconds(30), after.plusSeconds(30).plusMillis(1));
		this.mvc.perform(get("/actuator/resilience/paused").param("key", "erin"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$['paused-until']").value(nullValue()));
		this.mvc.perform(get("/actuator/resilience/events").param("name", "paused").param("kind", "pause"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.events.length()").value(1))
			.andExpect(jsonPath("$.events[0].kind").value("pause"))
			.andExpect(jsonPath("$.events[0].name").value("paused"))
			.andExpect(jsonPath("$.events[0].outcome").value("manual"))
			.andExpect(jsonPath("$.events[0].key").value(nullValue()))
			.andExpect(jsonPath("$.events[0].details.pause").value("30s"))
			.andExpect(content().string(not(containsString("dave"))));
	}

	/**
	 * An adaptive limiter lists its adaptive settings; its key shows the key's own limit and
	 * calls in flight, which the list and the gauge never name the key of.
	 */
	@Test
	void getShouldShowAnAdaptiveLimitersSettingsAndOneKeysLimit(@Autowired MeterRegistry meters,
			@Autowired TestTicker ticker) throws Exception {
		RateLimiter limiter = this.registry.get("llm");
		AdaptiveProbe.run(limiter, "frank", ticker::advance, Duration.ofMillis(10));
		Permit dropped = limiter.acquire("frank", 1, Duration.ZERO);
		ticker.advance(Duration.ofMillis(10));
		dropped.recordDrop();
		dropped.close();
		Permit held = limiter.acquire("frank", 1, Duration.ZERO);
		try {
			this.mvc.perform(get("/actuator/resilience"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.rateLimiters.llm.maxConcurrent").value(30))
				.andExpect(jsonPath("$.rateLimiters.llm.adaptiveConcurrency.algorithm").value("gradient"))
				.andExpect(jsonPath("$.rateLimiters.llm.adaptiveConcurrency.initialLimit").value(6))
				.andExpect(jsonPath("$.rateLimiters.llm.adaptiveConcurrency.minLimit").value(1))
				.andExpect(jsonPath("$.rateLimiters.llm.adaptiveConcurrency.maxLimit").value(30))
				.andExpect(jsonPath("$.rateLimiters.partner-api.adaptiveConcurrency").value(nullValue()))
				.andExpect(content().string(not(containsString("frank"))));
			this.mvc.perform(get("/actuator/resilience/llm").param("key", "frank"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.key").value("frank"))
				.andExpect(jsonPath("$.inFlight").value(1))
				.andExpect(jsonPath("$.maxConcurrent").value(5))
				.andExpect(jsonPath("$.adaptiveLimit").value(5));
			assertThat(meters.get("resilience.ratelimiter.concurrency.limit").tags("name", "llm").gauge().value())
				.isEqualTo(5.0);
			assertThat(meters.get("resilience.ratelimiter.concurrency.limit").gauges())
				.flatMap((gauge) -> gauge.getId().getTags())
				.noneMatch((tag) -> tag.getValue().contains("frank"));
		}
		finally {
			held.close();
		}
	}

	@Test
	void getWithoutKeyShouldShowTheSharedBucket() throws Exception {
		this.mvc.perform(get("/actuator/resilience/bucket"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.limiter").value("bucket"))
			.andExpect(jsonPath("$.key").value(""))
			.andExpect(jsonPath("$.remaining").value(5))
			.andExpect(jsonPath("$.quotas[0].policy").value("bucket-bucket"))
			.andExpect(jsonPath("$.quotas[0].window").value("2s"));
	}

	@Test
	void deleteShouldResetTheKey() throws Exception {
		RateLimiter limiter = this.registry.get("partner-api");
		limiter.tryAcquire("bob", 3);
		limiter.tryAcquire("carol", 1);
		this.mvc.perform(delete("/actuator/resilience/partner-api").param("key", "bob"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.key").value("bob"))
			.andExpect(jsonPath("$.remaining").value(3))
			.andExpect(jsonPath("$.quotas[0].reset").value("0ms"));
		assertThat(limiter.inspect("bob").getRemaining()).isEqualTo(3);
		assertThat(limiter.inspect("carol").getRemaining()).isEqualTo(2);
	}

	@Test
	void unknownLimiterShouldBeNotFound() throws Exception {
		this.mvc.perform(get("/actuator/resilience/nope").param("key", "alice")).andExpect(status().isNotFound());
		this.mvc.perform(delete("/actuator/resilience/nope").param("key", "alice")).andExpect(status().isNotFound());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(TestTimeConfiguration.class)
	static class TestApplication {

	}

}
