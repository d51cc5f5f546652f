package dev.resilience.internal;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How retry and poll messages print durations. */
class DurationTextTests {

	@Test
	void durationsArePrintedInMillisecondsUnderASecondAndInSecondsFromOne() {
		assertThat(DurationText.of(Duration.ZERO)).isEqualTo("0ms");
		assertThat(DurationText.of(Duration.ofMillis(100))).isEqualTo("100ms");
		assertThat(DurationText.of(Duration.ofNanos(500_000))).isEqualTo("0.5ms");
		assertThat(DurationText.of(Duration.ofNanos(1_234_567))).isEqualTo("1.23ms");
		assertThat(DurationText.of(Duration.ofNanos(1_235_000))).isEqualTo("1.24ms");
		assertThat(DurationText.of(Duration.ofMillis(999))).isEqualTo("999ms");
		assertThat(DurationText.of(Duration.ofSeconds(1))).isEqualTo("1s");
		assertThat(DurationText.of(Duration.ofMillis(1530))).isEqualTo("1.53s");
		assertThat(DurationText.of(Duration.ofMillis(1535))).isEqualTo("1.54s");
		assertThat(DurationText.of(Duration.ofSeconds(90))).isEqualTo("90s");
	}

}
