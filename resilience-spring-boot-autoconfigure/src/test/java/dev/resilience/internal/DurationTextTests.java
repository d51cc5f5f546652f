package dev.resilience.internal;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.convert.DurationStyle;

import static org.assertj.core.api.Assertions.assertThat;

/** How messages, events and the endpoint write durations. */
class DurationTextTests {

	@Test
	void durationsAreWrittenInTheLargestUnitThatHoldsThemExactly() {
		assertThat(DurationText.of(Duration.ZERO)).isEqualTo("0ms");
		assertThat(DurationText.of(Duration.ofMillis(100))).isEqualTo("100ms");
		assertThat(DurationText.of(Duration.ofMillis(999))).isEqualTo("999ms");
		assertThat(DurationText.of(Duration.ofSeconds(1))).isEqualTo("1s");
		assertThat(DurationText.of(Duration.ofMillis(1530))).isEqualTo("1530ms");
		assertThat(DurationText.of(Duration.ofSeconds(90))).isEqualTo("90s");
		assertThat(DurationText.of(Duration.ofMinutes(2))).isEqualTo("2m");
		assertThat(DurationText.of(Duration.ofMinutes(90))).isEqualTo("90m");
		assertThat(DurationText.of(Duration.ofHours(3))).isEqualTo("3h");
		assertThat(DurationText.of(Duration.ofDays(2))).isEqualTo("2d");
		assertThat(DurationText.of(Duration.ofSeconds(-1))).isEqualTo("-1s");
		assertThat(DurationText.of(Duration.ofMillis(-1530))).isEqualTo("-1530ms");
		// The longest duration, a poll's sum of absurd delays, has more milliseconds than a long holds.
		assertThat(DurationText.of(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999))).isEqualTo("9223372036854775808s");
	}

	@Test
	void durationsAreRoundedToTheMillisecond() {
		assertThat(DurationText.of(Duration.ofNanos(400_000))).isEqualTo("0ms");
		assertThat(DurationText.of(Duration.ofNanos(500_000))).isEqualTo("1ms");
		assertThat(DurationText.of(Duration.ofNanos(1_234_567))).isEqualTo("1ms");
		assertThat(DurationText.of(Duration.parse("PT57.869335721S"))).isEqualTo("57869ms");
		assertThat(DurationText.of(Duration.ofNanos(999_999_999))).isEqualTo("1s");
	}

	/** What the endpoint shows, a POST of the same text and application.yml read back alike. */
	@Test
	void whatIsWrittenReadsBackAsSpringBootReadsProperties() {
		for (Duration duration : new Duration[] { Duration.ZERO, Duration.ofMillis(250), Duration.ofMillis(1530),
				Duration.ofSeconds(5), Duration.ofMinutes(2), Duration.ofHours(1), Duration.ofDays(7),
				Duration.ofMillis(90_061_001) }) {
			assertThat(DurationStyle.detectAndParse(DurationText.of(duration))).isEqualTo(duration);
		}
	}

}
