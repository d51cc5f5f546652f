package dev.resilience.retry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading Retry-After: rate-limit rejections and both forms of the HTTP header. */
class RetryAfterTests {

	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-22T06:00:00Z"), ZoneOffset.UTC);

	@Test
	void secondsForm() {
		assertThat(RetryAfter.parseHeader("120", CLOCK)).isEqualTo(Duration.ofSeconds(120));
		assertThat(RetryAfter.parseHeader(" 0 ", CLOCK)).isEqualTo(Duration.ZERO);
	}

	@Test
	void httpDateFormIsRelativeToTheClock() {
		assertThat(RetryAfter.parseHeader("Sun, 22 Nov 2026 06:00:30 GMT", CLOCK)).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void httpDateInThePastAsksForNoWait() {
		assertThat(RetryAfter.parseHeader("Sun, 22 Nov 2026 05:59:00 GMT", CLOCK)).isEqualTo(Duration.ZERO);
	}

	@Test
	void otherValuesAskForNothing() {
		assertThat(RetryAfter.parseHeader("soon", CLOCK)).isNull();
		assertThat(RetryAfter.parseHeader("", CLOCK)).isNull();
		assertThat(RetryAfter.parseHeader("-5", CLOCK)).isNull();
		assertThat(RetryAfter.parseHeader("99999999999999999999999", CLOCK)).isNull();
	}

	@Test
	void rateLimitRejectionsAreRead() {
		RateLimitExceededException rejected = new RateLimitExceededException(
				new RateLimitDecision("partner", "", false, Duration.ZERO, Duration.ofSeconds(3), List.of(), 0, 0));
		assertThat(RetryAfter.rateLimits().of(rejected)).isEqualTo(Duration.ofSeconds(3));
		assertThat(RetryAfter.rateLimits().of(new IllegalStateException())).isNull();
	}

	@Test
	void orAsksTheOtherOnlyWhenTheFirstFindsNothing() {
		RetryAfter first = (failure) -> (failure instanceof IllegalStateException) ? Duration.ofSeconds(1) : null;
		RetryAfter combined = first.or((failure) -> Duration.ofSeconds(2));
		assertThat(combined.of(new IllegalStateException())).isEqualTo(Duration.ofSeconds(1));
		assertThat(combined.of(new IllegalArgumentException())).isEqualTo(Duration.ofSeconds(2));
	}

}
