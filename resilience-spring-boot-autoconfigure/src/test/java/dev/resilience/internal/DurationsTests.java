package dev.resilience.internal;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Durations}: nanoseconds that saturate instead of overflowing. */
class DurationsTests {

	@Test
	void durationsThatFitAreExact() {
		assertThat(Durations.saturatedNanos(Duration.ofMillis(1500))).isEqualTo(1_500_000_000L);
		assertThat(Durations.saturatedNanos(Duration.ofNanos(-7))).isEqualTo(-7);
	}

	@Test
	void durationsBeyondALongSaturate() {
		assertThat(Durations.saturatedNanos(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
		assertThat(Durations.saturatedNanos(Duration.ofSeconds(Long.MIN_VALUE))).isEqualTo(Long.MIN_VALUE);
	}

}
