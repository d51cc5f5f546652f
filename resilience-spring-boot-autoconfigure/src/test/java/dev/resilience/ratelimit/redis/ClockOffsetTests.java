package dev.resilience.ratelimit.redis;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's estimate of the Redis server's clock ({@link ClockOffset}), exactly: it grows at
 * once, and shrinks (a server clock set back, a failover to a server behind) once its larger
 * observations are two windows old.
 */
class ClockOffsetTests {

	private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

	@Test
	void theFirstObservationIsTheEstimate() {
		assertThat(ClockOffset.UNKNOWN.known()).isFalse();
		ClockOffset offset = ClockOffset.UNKNOWN.observe(-500, 10 * MS);
		assertThat(offset.known()).isTrue();
		assertThat(offset.estimate()).isEqualTo(-500);
	}

	@Test
	void aLargerObservationIsTakenAtOnceAndASmallerOneWithinTheWindowsIsNot() {
		ClockOffset offset = ClockOffset.UNKNOWN.observe(1_000, 0).observe(1_200, 10 * MS);
		assertThat(offset.estimate()).isEqualTo(1_200);
		// a reply slow in transit
		assertThat(offset.teachesNothing(1_100, 20 * MS)).isTrue();
		assertThat(offset.observe(1_100, 20 * MS)).isSameAs(offset);
		assertThat(offset.teachesNothing(1_300, 20 * MS)).isFalse();
		assertThat(offset.observe(1_300, 20 * MS).estimate()).isEqualTo(1_300);
	}

	@Test
	void theEstimateShrinksOnceTheLargerObservationsAreTwoWindowsOld() {
		// the server's clock is 5 s ahead, then set back to 1 s ahead at 1.5 s
		ClockOffset offset = ClockOffset.UNKNOWN.observe(5_000_000, 0);
		offset = offset.observe(1_000_000, 1_500 * MS);
		// a new window began at 1.5 s: the one before still holds 5 s
		assertThat(offset.teachesNothing(1_000_000, 1_600 * MS)).isTrue();
		assertThat(offset.estimate()).isEqualTo(5_000_000);
		assertThat(offset.observe(1_000_000, 2_499 * MS).estimate()).isEqualTo(5_000_000);
		// at 2.5 s the window of 1.5 s ends: 5 s is two windows old
		assertThat(offset.teachesNothing(1_000_000, 2_500 * MS)).isFalse();
		offset = offset.observe(1_000_000, 2_500 * MS);
		assertThat(offset.estimate()).isEqualTo(1_000_000);
		assertThat(offset).isEqualTo(new ClockOffset(true, 1_000_000, 1_000_000, 2_500 * MS));
	}

	@Test
	void afterASilenceTheLastWindowWithARepliesIsStillKnown() {
		ClockOffset offset = ClockOffset.UNKNOWN.observe(3_000, 0).observe(2_000, 60_000 * MS);
		assertThat(offset.estimate()).isEqualTo(3_000);
		assertThat(offset.observe(2_000, 61_000 * MS).estimate()).isEqualTo(2_000);
	}

}
