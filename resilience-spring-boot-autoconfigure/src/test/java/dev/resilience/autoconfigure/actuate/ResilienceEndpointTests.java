package dev.resilience.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.KeyState;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.QuotaState;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.RateLimiterDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.ResilienceDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.TokenBucketDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.WindowDescriptor;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

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
			ResilienceDescriptor descriptor = context.getBean(ResilienceEndpoint.class).resilience();
			assertThat(descriptor.rateLimiters().keySet()).containsExactly("partner-api", "bucket");
			assertThat(descriptor.rateLimiters().get("partner-api")).isEqualTo(new RateLimiterDescriptor("memory", null,
					List.of(new WindowDescriptor(3, Duration.ofSeconds(5))), "LOG", 0, Duration.ofMinutes(1), Duration.ZERO,
					1_000_000, "FAIL_OPEN"));
			assertThat(descriptor.rateLimiters().get("bucket")).isEqualTo(new RateLimiterDescriptor("memory",
					new TokenBucketDescriptor(10, 5, Duration.ofSeconds(1), "GREEDY"), List.of(), "LOG", 2,
					Duration.ofMinutes(1), Duration.ofSeconds(1), 1_000_000, "FAIL_OPEN"));
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
			KeyState expected = new KeyState("partner-api", "alice", 2, 3, 0, 0,
					List.of(new QuotaState("partner-api-5s", 3, Duration.ofSeconds(5), 2, Duration.ofSeconds(3))));
			assertThat(first).isEqualTo(expected);
			assertThat(second).isEqualTo(expected);
			assertThat(limiter.inspect("alice").getRemaining()).isEqualTo(2);
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
						new QuotaState("bucket-bucket", 10, Duration.ofSeconds(2), 7, Duration.ofMillis(200)));
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
					new QuotaState("partner-api-5s", 3, Duration.ofSeconds(5), 3, Duration.ZERO));
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

}
