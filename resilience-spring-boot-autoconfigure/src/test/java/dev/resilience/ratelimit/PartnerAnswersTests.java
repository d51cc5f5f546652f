package dev.resilience.ratelimit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A partner's answer read as a throttle (SPEC §10): Retry-After wins over the {@code t} of a
 * {@code RateLimit} item with {@code r=0}, which wins over no wait named.
 */
class PartnerAnswersTests {

	private static final Set<Integer> STATUSES = Set.of(429, 503);

	private final Clock clock = Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC);

	@Test
	void aThrottledStatusWithRetryAfterAsksForItEvenWithARateLimitField() {
		Throttle throttle = PartnerAnswers.throttled(429,
				Map.of("Retry-After", "12", "RateLimit", "\"p\";r=0;t=3")::get, STATUSES, this.clock);

		assertThat(throttle).isEqualTo(Throttle.retryAfter(Duration.ofSeconds(12)));
	}

	@Test
	void withoutRetryAfterTheRateLimitItemsResetIsTheWait() {
		assertThat(PartnerAnswers.throttled(503, Map.of("RateLimit", "\"p\";r=0;t=3")::get, STATUSES, this.clock))
			.isEqualTo(Throttle.rateLimitField(Duration.ofSeconds(3)));
		// a Retry-After that is neither form does not count
		assertThat(PartnerAnswers.throttled(503, Map.of("Retry-After", "later", "RateLimit", "\"p\";r=0;t=3")::get,
				STATUSES, this.clock))
			.isEqualTo(Throttle.rateLimitField(Duration.ofSeconds(3)));
	}

	@Test
	void aThrottledStatusThatNamesNoWaitTakesTheDefault() {
		assertThat(PartnerAnswers.throttled(429, Map.<String, String>of()::get, STATUSES, this.clock))
			.isEqualTo(Throttle.unspecified());
		assertThat(PartnerAnswers.throttled(429, Map.of("RateLimit", "\"p\";r=1;t=3")::get, STATUSES, this.clock))
			.isEqualTo(Throttle.unspecified());
	}

	@Test
	void aStatusNotInTheListIsNoThrottle() {
		assertThat(PartnerAnswers.throttled(500, Map.of("Retry-After", "12")::get, STATUSES, this.clock)).isNull();
		assertThat(PartnerAnswers.throttled(200, Map.of("RateLimit", "\"p\";r=0;t=3")::get, STATUSES, this.clock))
			.isNull();
	}

	@Test
	void anyAnswerWithNoQuotaLeftAsksToWaitForMore() {
		assertThat(PartnerAnswers.quotaExhausted(Map.of("RateLimit", "\"p\";r=0;t=2")::get))
			.isEqualTo(Throttle.rateLimitField(Duration.ofSeconds(2)));
		assertThat(PartnerAnswers.quotaExhausted(Map.of("RateLimit", "\"p\";r=3;t=2")::get)).isNull();
		assertThat(PartnerAnswers.quotaExhausted(Map.of("RateLimit", "\"p\";r=0;t=2.0")::get)).isNull();
		assertThat(PartnerAnswers.quotaExhausted(Map.<String, String>of()::get)).isNull();
	}

}
