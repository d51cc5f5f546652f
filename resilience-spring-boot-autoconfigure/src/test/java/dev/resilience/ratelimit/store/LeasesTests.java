package dev.resilience.ratelimit.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The concurrency permits of one key: kept in order of start, reclaimed oldest first, each returned once. */
class LeasesTests {

	@Test
	void leaseOfAReservationStartingLaterIsKeptBehindLeasesStartingEarlier() {
		// A reservation's lease starts at its slot, so calls admitted after it may start before it.
		Leases leases = new Leases();
		leases.add(1, 300);
		leases.add(2, 100);
		leases.add(3, 200);
		assertThat(leases.size()).isEqualTo(3);
		assertThat(leases.oldestStart()).isEqualTo(100);

		// a timeout of 200 at 350 reclaims the lease started at 100 only
		leases.prune(350, 200);

		assertThat(leases.size()).isEqualTo(2);
		assertThat(leases.oldestStart()).isEqualTo(200);
		assertThat(leases.remove(2)).isEqualTo(Long.MIN_VALUE);
		assertThat(leases.remove(1)).isEqualTo(300);
		assertThat(leases.remove(3)).isEqualTo(200);
		assertThat(leases.size()).isZero();
		assertThatIllegalStateException().isThrownBy(leases::oldestStart).withMessage("no permit is held");
	}

	@Test
	void returningTheOldestLeaseMakesTheNextOneTheOldest() {
		Leases leases = new Leases();
		leases.add(1, 10);
		leases.add(2, 20);
		leases.add(3, 30);

		assertThat(leases.remove(1)).isEqualTo(10);

		assertThat(leases.oldestStart()).isEqualTo(20);
		leases.prune(45, 25);
		assertThat(leases.size()).isOne();
		assertThat(leases.oldestStart()).isEqualTo(30);
		assertThat(leases.remove(3)).isEqualTo(30);
	}

	@Test
	void aLeaseReturnedTwiceIsReturnedOnce() {
		Leases leases = new Leases();
		leases.add(1, 10);
		leases.add(2, 20);

		assertThat(leases.remove(2)).isEqualTo(20);
		assertThat(leases.remove(2)).isEqualTo(Long.MIN_VALUE);

		assertThat(leases.size()).isOne();
		assertThat(leases.oldestStart()).isEqualTo(10);
	}

}
