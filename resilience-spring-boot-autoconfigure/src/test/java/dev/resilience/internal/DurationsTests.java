package dev.resilience.internal;

import java.math.BigInteger;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Durations}: nanoseconds that saturate instead of overflowing. */
class DurationsTests {

	@Test
	void durationSumsSaturate() {
		Duration longest = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
		assertThat(Durations.saturatedPlus(Duration.ofSeconds(1), Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(1_500));
		assertThat(Durations.saturatedPlus(Duration.ofSeconds(Long.MAX_VALUE), Duration.ofSeconds(1))).isEqualTo(longest);
		assertThat(Durations.saturatedPlus(Duration.ofSeconds(Long.MIN_VALUE), Duration.ofSeconds(-1)))
			.isEqualTo(Duration.ofSeconds(Long.MIN_VALUE));
	}

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

	@Test
	void productsAreComparedExactlyWhereverTheyLie() {
		long max = Long.MAX_VALUE;
		long[][] cases = {
				{ 3, 4, 2, 6 }, // equal
				{ 3, 4, 13, 1 }, { 13, 1, 3, 4 }, { 0, max, 0, 0 }, { 0, 5, 1, 1 },
				// beyond 63 bits, the same high half: only an unsigned comparison of the low halves tells
				{ 1L << 62, 2, (1L << 62) - 1, 2 }, { (1L << 62) - 1, 2, 1L << 62, 2 }, { (1L << 62) + 1, 2, 1L << 62, 2 },
				// different high halves, the low halves the other way round
				{ max, max, max, max - 1 }, { max, max - 1, max, max }, { max, 3, max, 2 }, { 1L << 32, 1L << 32, 1, max } };
		for (long[] c : cases) {
			boolean expected = BigInteger.valueOf(c[0]).multiply(BigInteger.valueOf(c[1]))
				.compareTo(BigInteger.valueOf(c[2]).multiply(BigInteger.valueOf(c[3]))) >= 0;
			assertThat(Durations.productAtLeast(c[0], c[1], c[2], c[3])).as("%d * %d >= %d * %d", c[0], c[1], c[2], c[3])
				.isEqualTo(expected);
		}
	}

}
