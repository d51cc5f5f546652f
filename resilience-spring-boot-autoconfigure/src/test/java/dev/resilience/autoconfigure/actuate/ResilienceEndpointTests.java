package dev.resilience.autoconfigure.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.AdaptiveConcurrencyDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.HttpClientDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.KeyState;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.PauseOnThrottleDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.QuotaState;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.RateLimiterDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.ResilienceDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.TokenBucketDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.WindowDescriptor;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ResilienceEndpoint}, called directly.
 */
class ResilienceEndpointTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				ResilienceEndpointAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class)
		.withPropertyValues("management.endpoints.web.exposure.include=resilience",
				"resilience.rate-limiters.partner-api.windows[0].limit=3",
				"resilience.rate-limiters.partner-api.windows[0].period=5s",
				"resilience.rate-limiters.bucket.token-bucket.capacity=10",
				"resilience.rate-limiters.bucket.token-bucket.refill-tokens=5",
				"resilience.rate-limiters.bucket.max-concurrent=2", "resilience.rate-limiters.bucket.max-wait=1s");

	private static final Instant NOW = Instant.parse("2026-11-29T08:00:00Z");

	private static final PauseOnThrottleDescriptor NO_PAUSES = new PauseOnThrottleDescriptor(false, List.of(429, 503),
			"1s", "10m", 0.1);

	private static final HttpClientDescriptor NO_HOSTS = new HttpClientDescriptor(List.of(), null);

	@Test
	void resilienceShouldListLimitersWithTheirSettings() {
		this.contextRunner.run((context) -> {
			ResilienceDescriptor descriptor = context.getBean(ResilienceEndpoint.class).resilience();
			assertThat(descriptor.rateLimiters().keySet()).containsExactly("partner-api", "bucket");
			assertThat(descriptor.rateLimiters().get("partner-api")).isEqualTo(new RateLimiterDescriptor("memory", null,
					List.of(new WindowDescriptor(3, "5s")), "log", 0, null, "1m", "0ms",
					1_000_000, "fail-open", NO_PAUSES, NO_HOSTS));
			assertThat(descriptor.rateLimiters().get("bucket")).isEqualTo(new RateLimiterDescriptor("memory",
					new TokenBucketDescriptor(10, 5, "1s", "greedy"), List.of(), "log", 2,
					null, "1m", "1s", 1_000_000, "fail-open", NO_PAUSES, NO_HOSTS));
		});
	}

	@Test
	void resilienceShouldListPauseOnThrottleAndHttpClientSettingsAsConfigured() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.partner-api.pause-on-throttle.enabled=true",
					"resilience.rate-limiters.partner-api.pause-on-throttle.statuses=503,420,429",
					"resilience.rate-limiters.partner-api.pause-on-throttle.default-pause=2s",
					"resilience.rate-limiters.partner-api.pause-on-throttle.max-pause=1m",
					"resilience.rate-limiters.partner-api.pause-on-throttle.resume-jitter=0.25",
					"resilience.rate-limiters.partner-api.http-client.hosts=api.partner.example,eu.partner.example",
					"resilience.rate-limiters.partner-api.http-client.key=#request.headers.getFirst('X-Api-Key')")
			.run((context) -> {
				ResilienceDescriptor descriptor = context.getBean(ResilienceEndpoint.class).resilience();
				RateLimiterDescriptor partner = descriptor.rateLimiters().get("partner-api");
				assertThat(partner.pauseOnThrottle()).isEqualTo(new PauseOnThrottleDescriptor(true,
						List.of(420, 429, 503), "2s", "1m", 0.25));
				assertThat(partner.httpClient()).isEqualTo(new HttpClientDescriptor(
						List.of("api.partner.example", "eu.partner.example"), "#request.headers.getFirst('X-Api-Key')"));
				assertThat(descriptor.rateLimiters().get("bucket").pauseOnThrottle()).isEqualTo(NO_PAUSES);
				assertThat(descriptor.rateLimiters().get("bucket").httpClient()).isEqualTo(NO_HOSTS);
			});
	}

	@Test
	void limiterOfARegistryMadeWithoutPropertiesShouldListNoHosts() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.limiter("own", RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.build();
		assertThat(new ResilienceEndpoint(registry).resilience().rateLimiters().get("own").httpClient())
			.isEqualTo(NO_HOSTS);
	}

	/**
	 * A paused key shows when its pause ends on the wall clock: the same instant however late it
	 * is asked, rounded up to the millisecond; none once the pause is over, nor for other keys.
	 */
	@Test
	void rateLimiterKeyShouldShowWhenItsPauseEnds() {
		this.contextRunner.withUserConfiguration(TickerClockConfiguration.class)
			.withPropertyValues("resilience.rate-limiters.partner-api.pause-on-throttle.enabled=true")
			.run((context) -> {
				ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner-api");
				TestTicker ticker = context.getBean(TestTicker.class);
				limiter.pause("alice", Duration.ofMillis(2500).plusNanos(1));
				Instant end = NOW.plusMillis(2501);
				KeyState paused = endpoint.rateLimiterKey("partner-api", "alice");
				assertThat(paused).isEqualTo(new KeyState("partner-api", "alice", 0, 3, 0, 0, null, end, List.of(
						new QuotaState("partner-api-5s", 3, "5s", 0, "2500ms"))));
				ticker.advance(Duration.ofSeconds(1));
				assertThat(endpoint.rateLimiterKey("partner-api", "alice").pausedUntil()).isEqualTo(end);
				assertThat(endpoint.rateLimiterKey("partner-api", "bob").pausedUntil()).isNull();
				assertThat(endpoint.rateLimiterKey("partner-api", null).pausedUntil()).isNull();
				ticker.advance(Duration.ofMillis(1500).plusNanos(1));
				KeyState resumed = endpoint.rateLimiterKey("partner-api", "alice");
				assertThat(resumed.pausedUntil()).isNull();
				assertThat(resumed.remaining()).isEqualTo(3);
			});
	}

	@Test
	void resetShouldEndThePauseOfTheKey() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.partner-api.pause-on-throttle.enabled=true")
			.run((context) -> {
				ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
				context.getBean(RateLimiterRegistry.class).get("partner-api").pause("alice", Duration.ofMinutes(1));
				assertThat(endpoint.rateLimiterKey("partner-api", "alice").pausedUntil()).isNotNull();
				assertThat(endpoint.resetRateLimiterKey("partner-api", "alice").pausedUntil()).isNull();
				assertThat(endpoint.rateLimiterKey("partner-api", "alice").pausedUntil()).isNull();
			});
	}

	@Test
	void rateLimiterKeyShouldShowStateWithoutConsuming() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner-api");
			limiter.tryAcquire("alice", 1);
			context.getBean(TestTicker.class).advance(Duration.ofSeconds(2));
			KeyState first = endpoint.rateLimiterKey("partner-api", "alice");
			KeyState second = endpoint.rateLimiterKey("partner-api", "alice");
			KeyState expected = new KeyState("partner-api", "alice", 2, 3, 0, 0, null, null,
					List.of(new QuotaState("partner-api-5s", 3, "5s", 2, "3s")));
			assertThat(first).isEqualTo(expected);
			assertThat(second).isEqualTo(expected);
			assertThat(limiter.inspect("alice").getRemaining()).isEqualTo(2);
		});
	}

	@Test
	void resilienceShouldListAnAdaptiveLimitersSettingsInForce() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.llm.max-concurrent=adaptive",
					"resilience.rate-limiters.llm.adaptive-concurrency.algorithm=vegas",
					"resilience.rate-limiters.llm.adaptive-concurrency.initial-limit=8",
					"resilience.rate-limiters.llm.adaptive-concurrency.min-limit=2",
					"resilience.rate-limiters.llm.adaptive-concurrency.max-limit=40")
			.run((context) -> {
				ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
				RateLimiterDescriptor llm = endpoint.resilience().rateLimiters().get("llm");
				assertThat(llm.maxConcurrent()).isEqualTo(40);
				assertThat(llm.adaptiveConcurrency()).isEqualTo(new AdaptiveConcurrencyDescriptor("vegas", 8, 2, 40));
				assertThat(endpoint.resilience().rateLimiters().get("bucket").adaptiveConcurrency()).isNull();
				context.getBean(RateLimiterRegistry.class)
					.updateSettings("llm", RateLimiterSettings.builder()
						.adaptiveConcurrency(new AdaptiveConcurrencySettings(AdaptiveConcurrencySettings.Algorithm.AIMD, 4,
								1, 20), Duration.ofMinutes(1))
						.build());
				assertThat(endpoint.resilience().rateLimiters().get("llm").adaptiveConcurrency())
					.isEqualTo(new AdaptiveConcurrencyDescriptor("aimd", 4, 1, 20));
			});
	}

	/**
	 * An adaptive limiter's key shows its own limit in force and its calls in flight: a key that
	 * ended no call is at {@code initial-limit}, one whose calls were dropped lower.
	 */
	@Test
	void rateLimiterKeyShouldShowTheKeysAdaptiveLimitAndCallsInFlight() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.llm.max-concurrent=adaptive",
					"resilience.rate-limiters.llm.adaptive-concurrency.initial-limit=10",
					"resilience.rate-limiters.llm.pause-on-throttle.enabled=true")
			.run((context) -> {
				ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("llm");
				TestTicker ticker = context.getBean(TestTicker.class);
				KeyState probing = endpoint.rateLimiterKey("llm", "alice");
				assertThat(probing.adaptiveLimit()).as("the key's first probe, at min-limit").isEqualTo(1);
				assertThat(probing.maxConcurrent()).isEqualTo(1);
				AdaptiveProbe.run(limiter, "alice", ticker::advance, Duration.ofMillis(10));
				KeyState fresh = endpoint.rateLimiterKey("llm", "alice");
				assertThat(fresh.adaptiveLimit()).isEqualTo(10);
				assertThat(fresh.maxConcurrent()).isEqualTo(10);
				for (int i = 0; i < 2; i++) {
					Permit permit = limiter.acquire("alice", 1, Duration.ZERO);
					ticker.advance(Duration.ofMillis(10));
					permit.recordDrop();
					permit.close();
				}
				Permit held = limiter.acquire("alice", 1, Duration.ZERO);
				KeyState cut = endpoint.rateLimiterKey("llm", "alice");
				assertThat(cut.adaptiveLimit()).isEqualTo(8);
				assertThat(cut.maxConcurrent()).isEqualTo(8);
				assertThat(cut.inFlight()).isEqualTo(1);
				// a paused key shows its own limit and calls in flight, not max-limit
				limiter.pause("alice", Duration.ofSeconds(5));
				KeyState paused = endpoint.rateLimiterKey("llm", "alice");
				assertThat(paused.pausedUntil()).isNotNull();
				assertThat(paused.adaptiveLimit()).isEqualTo(8);
				assertThat(paused.maxConcurrent()).isEqualTo(8);
				assertThat(paused.inFlight()).isEqualTo(1);
				held.close();
				assertThat(endpoint.rateLimiterKey("llm", "alice").inFlight()).isZero();
				assertThat(endpoint.rateLimiterKey("llm", "bob").adaptiveLimit()).as("a new key probes").isEqualTo(1);
				assertThat(endpoint.rateLimiterKey("bucket", "alice").adaptiveLimit()).isNull();
				assertThat(endpoint.rateLimiterKey("bucket", "alice").maxConcurrent()).isEqualTo(2);
			});
	}

	@Test
	void rateLimiterKeyWithoutKeyShouldShowTheSharedBucket() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
			context.getBean(RateLimiterRegistry.class).get("partner-api").tryAcquire("", 2);
			KeyState state = endpoint.rateLimiterKey("partner-api", null);
			assertThat(state.key()).isEmpty();
			assertThat(state.remaining()).isEqualTo(1);
		});
	}

	@Test
	void rateLimiterKeyShouldShowPermitsInFlight() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("bucket");
			try (var permit = limiter.acquire("k", 3)) {
				KeyState state = endpoint.rateLimiterKey("bucket", "k");
				assertThat(state.inFlight()).isEqualTo(1);
				assertThat(state.maxConcurrent()).isEqualTo(2);
				assertThat(state.quotas()).containsExactly(
						new QuotaState("bucket-bucket", 10, "2s", 7, "200ms"));
				assertThat(state.remaining()).isEqualTo(1);
				assertThat(state.limit()).isEqualTo(2);
			}
			assertThat(endpoint.rateLimiterKey("bucket", "k").inFlight()).isZero();
		});
	}

	@Test
	void resetShouldRestoreTheKeyToFull() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner-api");
			limiter.tryAcquire("alice", 3);
			limiter.tryAcquire("bob", 1);
			assertThat(limiter.tryAcquire("alice", 1).isPermitted()).isFalse();
			KeyState reset = endpoint.resetRateLimiterKey("partner-api", "alice");
			assertThat(reset.remaining()).isEqualTo(3);
			assertThat(reset.quotas()).containsExactly(
					new QuotaState("partner-api-5s", 3, "5s", 3, "0ms"));
			assertThat(limiter.tryAcquire("alice", 3).isPermitted()).isTrue();
			assertThat(limiter.inspect("bob").getRemaining()).isEqualTo(2);
		});
	}

	@Test
	void unknownLimiterShouldBeNull() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
			assertThat(endpoint.rateLimiterKey("nope", "alice")).isNull();
			assertThat(endpoint.resetRateLimiterKey("nope", "alice")).isNull();
		});
	}

	@Test
	void webExtensionShouldAnswerNotFoundForAnUnknownLimiter() {
		this.contextRunner.run((context) -> {
			ResilienceEndpointWebExtension extension = context.getBean(ResilienceEndpointWebExtension.class);
			assertThat(extension.rateLimiterKey("nope", "alice", null, null).getStatus()).isEqualTo(404);
			assertThat(extension.rateLimiterKey("nope", "alice", null, null).getBody()).isNull();
			assertThat(extension.resetRateLimiterKey("nope", "alice").getStatus()).isEqualTo(404);
			assertThat(extension.rateLimiterKey("partner-api", "alice", null, null).getStatus()).isEqualTo(200);
			assertThat(extension.rateLimiterKey("partner-api", "alice", null, null).getBody())
				.isInstanceOfSatisfying(ResilienceEndpoint.KeyState.class, (state) -> assertThat(state.remaining()).isEqualTo(3));
		});
	}

	/**
	 * A wall clock that moves with the test's ticker, from {@link #NOW}, as the system clock moves
	 * with the monotonic one.
	 */
	@Configuration(proxyBeanMethods = false)
	static class TickerClockConfiguration {

		@Bean
		Clock tickerClock(TestTicker ticker) {
			long start = ticker.read();
			return new Clock() {

				@Override
				public Instant instant() {
					return NOW.plusNanos(ticker.read() - start);
				}

				@Override
				public ZoneId getZone() {
					return ZoneOffset.UTC;
				}

				@Override
				public Clock withZone(ZoneId zone) {
					throw new UnsupportedOperationException();
				}

			};
		}

	}

}
