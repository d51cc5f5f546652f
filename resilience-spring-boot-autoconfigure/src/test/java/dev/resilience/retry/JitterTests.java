package dev.resilience.retry;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Jitter#DECORRELATED} where three times the previous delay no longer fits a long. */
class JitterTests {

	/** A first delay whose spans up to {@code Long.MAX_VALUE - 1} and {@code Long.MAX_VALUE} round apart as doubles. */
	private static final long BASE = 1_000_000_000_000_000_511L;

	@Test
	void theLargestPreviousDelayThatTriplesIsTripledExactly() {
		// Long.MAX_VALUE / 3 * 3 is Long.MAX_VALUE - 1: the upper bound, not the saturated one.
		long previous = Long.MAX_VALUE / 3;
		long delay = Jitter.DECORRELATED.apply(0, previous, BASE, Long.MAX_VALUE, 0.25);
		assertThat(delay).isEqualTo(BASE + (long) ((Long.MAX_VALUE - 1 - BASE) * 0.25)).isEqualTo(3_055_843_009_213_694_207L);
	}

	@Test
	void aLargerPreviousDelaySaturatesTheUpperBound() {
		long delay = Jitter.DECORRELATED.apply(0, Long.MAX_VALUE / 3 + 1, BASE, Long.MAX_VALUE, 0.25);
		assertThat(delay).isEqualTo(BASE + (long) ((Long.MAX_VALUE - BASE) * 0.25)).isEqualTo(3_055_843_009_213_694_463L);
	}

}
