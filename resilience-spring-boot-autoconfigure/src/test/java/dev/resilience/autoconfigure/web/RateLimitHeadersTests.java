package dev.resilience.autoconfigure.web;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitDecision.Quota;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitHeaders}: the texts of a policy, formatted once and kept, stay those
 * of the decision's limiter and settings.
 */
class RateLimitHeadersTests {

	@Test
	void policyTextsShouldFollowTheLimiterAndTheSettings() {
		Quota window = new Quota(Quota.Type.WINDOW, 25, Duration.ofSeconds(5), 3, Duration.ofMillis(2100));
		Quota bucket = new Quota(Quota.Type.TOKEN_BUCKET, 10, Duration.ofMillis(1500), 4, Duration.ofMillis(100));
		RateLimitDecision decision = decision("partner-api", window, bucket);
		assertThat(RateLimitHeaders.policy(decision)).isEqualTo("\"partner-api-5s\";q=25;w=5, \"partner-api-bucket\";q=10;w=2");
		assertThat(RateLimitHeaders.rateLimit(decision)).isEqualTo("\"partner-api-5s\";r=3;t=3, \"partner-api-bucket\";r=4;t=1");
		// Asked again, for another state and after settings changed: the same texts where the
		// settings are the same, new ones where they changed, never another limiter's.
		Quota later = new Quota(Quota.Type.WINDOW, 25, Duration.ofSeconds(5), 0, Duration.ofSeconds(4));
		assertThat(RateLimitHeaders.rateLimitItem(decision("partner-api", later), later))
			.isEqualTo("\"partner-api-5s\";r=0;t=4");
		Quota raised = new Quota(Quota.Type.WINDOW, 50, Duration.ofSeconds(5), 0, Duration.ofSeconds(4));
		assertThat(RateLimitHeaders.policyItem(decision("partner-api", raised), raised))
			.isEqualTo("\"partner-api-5s\";q=50;w=5");
		assertThat(RateLimitHeaders.policyItem(decision("other", raised), raised)).isEqualTo("\"other-5s\";q=50;w=5");
		Quota shorter = new Quota(Quota.Type.WINDOW, 50, Duration.ofMillis(250), 0, Duration.ofMillis(250));
		assertThat(RateLimitHeaders.policy(decision("partner-api", shorter), shorter).name()).isEqualTo("partner-api-250ms");
		assertThat(RateLimitHeaders.policyItem(decision("partner-api", shorter), shorter))
			.isEqualTo("\"partner-api-250ms\";q=50;w=1");
	}

	@Test
	void policyTextsShouldStayRightWhenMoreSettingsWereSeenThanAreKept() {
		for (int limit = 1; limit <= 3000; limit++) {
			Quota quota = new Quota(Quota.Type.WINDOW, limit, Duration.ofSeconds(5), 0, Duration.ZERO);
			assertThat(RateLimitHeaders.policyItem(decision("api", quota), quota))
				.isEqualTo("\"api-5s\";q=" + limit + ";w=5");
		}
	}

	@Test
	void quotesAndBackslashesInALimiterNameShouldBeEscaped() {
		Quota window = new Quota(Quota.Type.WINDOW, 1, Duration.ofSeconds(1), 1, Duration.ZERO);
		assertThat(RateLimitHeaders.policyItem(decision("a\"b\\c", window), window)).isEqualTo("\"a\\\"b\\\\c-1s\";q=1;w=1");
	}

	private static RateLimitDecision decision(String limiter, Quota... quotas) {
		return new RateLimitDecision(limiter, "k", true, Duration.ZERO, Duration.ZERO, List.of(quotas), 0, 0);
	}

}
