package dev.resilience.ratelimit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimitDecision.Quota;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link Quota#policyName(String)}: the name the headers and the endpoint show.
 */
class QuotaPolicyNameTests {

	@Test
	void policyNameShouldNameTheBucketOrTheWindowPeriodInItsLargestExactUnit() {
		assertThat(quota(Quota.Type.TOKEN_BUCKET, Duration.ofMillis(1500)).policyName("api")).isEqualTo("api-bucket");
		assertThat(quota(Quota.Type.WINDOW, Duration.ofSeconds(5)).policyName("api")).isEqualTo("api-5s");
		assertThat(quota(Quota.Type.WINDOW, Duration.ofMillis(250)).policyName("api")).isEqualTo("api-250ms");
		assertThat(quota(Quota.Type.WINDOW, Duration.ofNanos(1500)).policyName("api")).isEqualTo("api-1500ns");
	}

	private static Quota quota(Quota.Type type, Duration window) {
		return new Quota(type, 10, window, 1, Duration.ZERO);
	}

}
