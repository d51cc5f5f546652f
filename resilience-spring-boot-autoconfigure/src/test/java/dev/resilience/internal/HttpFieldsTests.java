package dev.resilience.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reading a partner's {@code Retry-After} and {@code RateLimit} fields: every form the standards
 * allow, and a malformed field ignored whole.
 */
class HttpFieldsTests {

	private final Clock clock = Clock.fixed(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.UTC);

	@Test
	void retryAfterIsSecondsOrAnHttpDate() {
		assertThat(HttpFields.retryAfter("120", this.clock)).isEqualTo(Duration.ofSeconds(120));
		assertThat(HttpFields.retryAfter(" 7 ", this.clock)).isEqualTo(Duration.ofSeconds(7));
		assertThat(HttpFields.retryAfter("Sun, 29 Nov 2026 10:00:42 GMT", this.clock)).isEqualTo(Duration.ofSeconds(42));
		assertThat(HttpFields.retryAfter("Sun, 29 Nov 2026 09:00:00 GMT", this.clock)).isZero();
		assertThat(HttpFields.retryAfter("soon", this.clock)).isNull();
		assertThat(HttpFields.retryAfter("-3", this.clock)).isNull();
		assertThat(HttpFields.retryAfter("99999999999999999999999", this.clock)).isNull();
	}

	@Test
	void theLongestResetAmongTheItemsWithNoQuotaLeftIsTheWait() {
		assertThat(HttpFields.exhaustedFor("\"partner-5s\";r=0;t=3")).isEqualTo(Duration.ofSeconds(3));
		assertThat(HttpFields.exhaustedFor("\"a\";r=0;t=3, \"b\";r=0;t=50, \"c\";r=4;t=90"))
			.isEqualTo(Duration.ofSeconds(50));
		assertThat(HttpFields.exhaustedFor("default;t=12;r=0")).isEqualTo(Duration.ofSeconds(12));
		assertThat(HttpFields.exhaustedFor("\"a\";r=0;t=0")).isZero();
		assertThat(HttpFields.exhaustedFor("\"q\\\"uoted\";pk=:cGFydG5lcg==:;r=0;t=2")).isEqualTo(Duration.ofSeconds(2));
		assertThat(HttpFields.exhaustedFor("\"a\";w=1.5;r=0;t=4")).isEqualTo(Duration.ofSeconds(4));
		assertThat(HttpFields.exhaustedFor("\"a\";r=0;t=2;x=?1;y=tok;z=\"s\"")).isEqualTo(Duration.ofSeconds(2));
		assertThat(HttpFields.exhaustedFor("\"a\";r;t=2")).isNull(); // r=?1 is no integer
	}

	@Test
	void itemsWithQuotaLeftOrWithoutAResetAskForNoWait() {
		assertThat(HttpFields.exhaustedFor("\"a\";r=5;t=3")).isNull();
		assertThat(HttpFields.exhaustedFor("\"a\";r=0")).isNull();
		assertThat(HttpFields.exhaustedFor("\"a\";t=3")).isNull();
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "  ", "\"a\";r=0;t=3,", "\"a\";r=0;t=3 \"b\"", "\"a;r=0;t=3", "\"a\";r=0;t=1.5",
			"\"a\";r=0;t=-3", "(\"a\" \"b\");r=0;t=3", "\"a\";R=0;t=3", "\"a\";r=0;t=3, 5", "\"a\";r=0;t=1234567890123456", "\"a\";pk=:ab;r=0;t=3",
			"\"a\";pk=:a b:;r=0;t=3", "\"a\";w=1.2345;r=0;t=3" })
	void aMalformedFieldIsIgnoredWhole(String value) {
		assertThat(HttpFields.exhaustedFor(value)).isNull();
		assertThat(HttpFields.exhaustedFor(value + ", \"b\";r=0;t=9")).isNull();
	}

}
