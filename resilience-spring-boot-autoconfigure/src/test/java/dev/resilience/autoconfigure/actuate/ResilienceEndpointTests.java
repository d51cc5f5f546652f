package dev.resilience.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.KeyState;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.QuotaState;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

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

	@Test
	void resilienceShouldListLimitersWithTheirSettings() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint.ResilienceDescriptor descriptor = context.getBean(ResilienceEndpoint.class).resilience();
			assertThat(descriptor.rateLimiters()).containsOnlyKeys("partner-api", "bucket");
			assertThat(descriptor.rateLimiters().keySet()).containsExactly("partner-api", "bucket");
			assertThat(descriptor.rateLimiters().get("partner-api"))
				.isEqualTo(RateLimiterSettings.builder().window(3, Duration.ofSeconds(5)).build());
			assertThat(descriptor.rateLimiters().get("bucket")).isEqualTo(RateLimiterSettings.builder()
				.tokenBucket(10, 5, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.maxConcurrent(2, Duration.ofMinutes(1))
				.maxWait(Duration.ofSeconds(1))
				.build());
		});
	}

	@Test
	void rateLimiterKeyShouldShowStateWithoutConsuming() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner-api");
			limiter.tryAcquire("alice", 1);
			context.getBean(TestTicker.class).advance(Duration.ofSeconds(2));
			WebEndpointResponse<KeyState> first = endpoint.rateLimiterKey("partner-api", "alice");
			WebEndpointResponse<KeyState> second = endpoint.rateLimiterKey("partner-api", "alice");
			assertThat(first.getStatus()).isEqualTo(200);
			KeyState expected = new KeyState("partner-api", "alice", 2, 3, 0, 0,
					List.of(new QuotaState("partner-api-5s", 3, Duration.ofSeconds(5), 2, Duration.ofSeconds(3))));
			assertThat(first.getBody()).isEqualTo(expected);
			assertThat(second.getBody()).isEqualTo(expected);
			assertThat(limiter.inspect("alice").getRemaining()).isEqualTo(2);
		});
	}

	@Test
	void rateLimiterKeyWithoutKeyShouldShowTheSharedBucket() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
			context.getBean(RateLimiterRegistry.class).get("partner-api").tryAcquire("", 2);
			KeyState state = endpoint.rateLimiterKey("partner-api", null).getBody();
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
				KeyState state = endpoint.rateLimiterKey("bucket", "k").getBody();
				assertThat(state.inFlight()).isEqualTo(1);
				assertThat(state.maxConcurrent()).isEqualTo(2);
				assertThat(state.quotas()).containsExactly(
						new QuotaState("bucket-bucket", 10, Duration.ofSeconds(2), 7, Duration.ofMillis(200)));
				assertThat(state.remaining()).isEqualTo(1);
				assertThat(state.limit()).isEqualTo(2);
			}
			assertThat(endpoint.rateLimiterKey("bucket", "k").getBody().inFlight()).isZero();
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
			WebEndpointResponse<KeyState> reset = endpoint.resetRateLimiterKey("partner-api", "alice");
			assertThat(reset.getStatus()).isEqualTo(200);
			assertThat(reset.getBody().remaining()).isEqualTo(3);
			assertThat(reset.getBody().quotas()).containsExactly(
					new QuotaState("partner-api-5s", 3, Duration.ofSeconds(5), 3, Duration.ZERO));
			assertThat(limiter.tryAcquire("alice", 3).isPermitted()).isTrue();
			assertThat(limiter.inspect("bob").getRemaining()).isEqualTo(2);
		});
	}

	@Test
	void unknownLimiterShouldBeNotFound() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
			assertThat(endpoint.rateLimiterKey("nope", "alice").getStatus()).isEqualTo(404);
			assertThat(endpoint.rateLimiterKey("nope", "alice").getBody()).isNull();
			assertThat(endpoint.resetRateLimiterKey("nope", "alice").getStatus()).isEqualTo(404);
		});
	}

}
