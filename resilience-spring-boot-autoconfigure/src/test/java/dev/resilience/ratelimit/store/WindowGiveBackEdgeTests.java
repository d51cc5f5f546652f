package dev.resilience.ratelimit.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.WindowSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls given back to a window at the edges: an entry made exactly at a fixed window's start or
 * exactly one period before it, entries given back out of order, a log pruned in several steps,
 * and times far from zero.
 */
class WindowGiveBackEdgeTests {

	private static final WindowSettings WINDOW = new WindowSettings(10, Duration.ofNanos(100));

	@Test
	void counterGivesBackACallMadeExactlyAtItsWindowsStart() {
		WindowCounter counter = new WindowCounter(0);
		counter.add(WINDOW, 0, 1, 1);
		counter.add(WINDOW, 10, 1, 2);

		counter.remove(WINDOW, 1, 1, 0);

		assertThat(counter.remaining(WINDOW, 10)).isEqualTo(9);
		// the state saved before the latest call no longer counts the first one either
		counter.remove(WINDOW, 2, 1, 10);
		assertThat(counter.remaining(WINDOW, 10)).isEqualTo(10);
	}

	@Test
	void counterGivesBackACallMadeExactlyOnePeriodBeforeTheCurrentWindow() {
		WindowCounter counter = new WindowCounter(0);
		counter.add(WINDOW, 0, 2, 1);
		counter.add(WINDOW, 100, 1, 2);
		counter.add(WINDOW, 150, 1, 3);
		// at 150 the previous window (2) weighs half: 1 + 2 in the current one
		assertThat(counter.remaining(WINDOW, 150)).isEqualTo(7);

		counter.remove(WINDOW, 1, 2, 0);

		assertThat(counter.remaining(WINDOW, 150)).isEqualTo(8);
		// the state saved before the call at 150 (the one restored when it is given back) lost it too
		counter.remove(WINDOW, 3, 1, 150);
		assertThat(counter.remaining(WINDOW, 150)).isEqualTo(9);
		assertThat(counter.nanosUntilMore(WINDOW, 150)).isEqualTo(50);
	}

	/**
	 * A counter journals the latest reservations ahead, up to a constant: more of them, and the
	 * oldest leaves the journal; the ones it keeps are still given back exactly, as if never made.
	 */
	@Test
	void counterGivesBackTheReservationsItJournalsExactlyBeyondTheJournalsSize() {
		int reservations = WindowCounter.JOURNAL_CALLS + 1;
		WindowCounter counter = new WindowCounter(0);
		counter.prune(WINDOW, 0);
		counter.add(WINDOW, 0, 10, 1);
		long[] slots = new long[reservations];
		for (int i = 0; i < reservations; i++) {
			slots[i] = counter.availableAt(WINDOW, 0, 10);
			counter.add(WINDOW, slots[i], 10, 2 + i);
		}
		assertThat(slots[reservations - 1]).isGreaterThan(slots[0]);
		for (int i = reservations - 1; i >= 1; i--) {
			counter.remove(WINDOW, 2 + i, 10, slots[i]);
		}

		// as if only the call at 0 and the first reservation had been made
		WindowCounter expected = new WindowCounter(0);
		expected.prune(WINDOW, 0);
		expected.add(WINDOW, 0, 10, 1);
		expected.add(WINDOW, slots[0], 10, 2);
		for (long cost = 1; cost <= 10; cost++) {
			assertThat(counter.availableAt(WINDOW, 0, cost)).as("cost %d", cost)
				.isEqualTo(expected.availableAt(WINDOW, 0, cost));
		}
		for (long at : new long[] { slots[0], slots[0] + 50, slots[0] + 150 }) {
			counter.prune(WINDOW, at);
			expected.prune(WINDOW, at);
			assertThat(counter.remaining(WINDOW, at)).as("at %d", at).isEqualTo(expected.remaining(WINDOW, at));
			assertThat(counter.nanosUntilMore(WINDOW, at)).isEqualTo(expected.nanosUntilMore(WINDOW, at));
		}
	}

	@Test
	void logPrunedInTwoStepsStillFindsTheEntriesLeftBySequence() {
		WindowLog log = new WindowLog();
		for (int i = 0; i < 4; i++) {
			log.add(WINDOW, 10L * i, 1, 1 + i);
		}
		log.prune(WINDOW, 105); // the entry at 0 leaves
		log.prune(WINDOW, 115); // then the one at 10
		assertThat(log.remaining(WINDOW, 115)).isEqualTo(8);

		log.remove(WINDOW, 3, 1, 20);

		assertThat(log.remaining(WINDOW, 115)).isEqualTo(9);
		log.remove(WINDOW, 4, 1, 30);
		assertThat(log.remaining(WINDOW, 115)).isEqualTo(10);
	}

	@Test
	void logGivenBackLatestFirstQueuesNewCallsBehindTheLatestCallStillCounted() {
		WindowLog log = new WindowLog();
		// reservations ahead of now (5): at 10, 20 and 30
		log.add(WINDOW, 10, 1, 1);
		log.add(WINDOW, 20, 1, 2);
		log.add(WINDOW, 30, 1, 3);
		assertThat(log.availableAt(WINDOW, 5, 1)).isEqualTo(30);

		log.remove(WINDOW, 3, 1, 30);
		assertThat(log.availableAt(WINDOW, 5, 1)).isEqualTo(20);
		log.remove(WINDOW, 2, 1, 20);

		assertThat(log.availableAt(WINDOW, 5, 1)).isEqualTo(10);
		assertThat(log.availableAt(WINDOW, 15, 1)).isEqualTo(15);
	}

	@Test
	void logGivenBackLatestFirstKeepsItsTimesInOrderForTheCallsAfter() {
		WindowSettings twoPer50 = new WindowSettings(2, Duration.ofNanos(50));
		WindowLog log = new WindowLog();
		log.add(twoPer50, 0, 1, 1);
		// reservations ahead of now (0), given back latest first
		log.add(twoPer50, 50, 2, 2);
		log.add(twoPer50, 100, 2, 3);
		log.remove(twoPer50, 3, 2, 100);
		log.remove(twoPer50, 2, 2, 50);
		log.add(twoPer50, 10, 1, 4);
		assertThat(log.remaining(twoPer50, 10)).isZero();

		// at 60 both calls (at 0 and 10) have left: the whole quota is back, and nothing to wait for
		log.prune(twoPer50, 60);
		assertThat(log.remaining(twoPer50, 60)).isEqualTo(2);
		assertThat(log.nanosUntilMore(twoPer50, 60)).isZero();
		assertThat(log).hasToString("WindowLog[]");
	}

	@Test
	void logWithEveryCallGivenBackStartsAgainAtTheNextCall() {
		WindowLog log = new WindowLog();
		log.add(WINDOW, 0, 1, 1);
		log.add(WINDOW, 50, 1, 2);
		log.add(WINDOW, 100, 1, 3);
		log.remove(WINDOW, 2, 1, 50);
		log.remove(WINDOW, 3, 1, 100);
		log.remove(WINDOW, 1, 1, 0);
		assertThat(log).hasToString("WindowLog[]");
		assertThat(log.availableAt(WINDOW, 20, 10)).isEqualTo(20);

		log.add(WINDOW, 20, 4, 4);
		log.add(WINDOW, 30, 1, 5);
		assertThat(log.remaining(WINDOW, 30)).isEqualTo(5);
		// the calls given back before are gone for good; the new ones are found by their numbers
		log.remove(WINDOW, 2, 1, 50);
		log.remove(WINDOW, 4, 4, 20);
		assertThat(log.remaining(WINDOW, 30)).isEqualTo(9);
	}

	@Test
	void logCountsAlikeWhereverItsTimesLie() {
		for (long origin : new long[] { 0, -1_000_000_000_000L, 1_000_000_000_000L, Long.MIN_VALUE / 2 }) {
			WindowLog log = new WindowLog();
			log.add(WINDOW, origin, 4, 1);
			log.add(WINDOW, origin + 50, 3, 2);
			log.add(WINDOW, origin + 120, 2, 3);
			assertThat(log.remaining(WINDOW, origin + 120)).as("from %d", origin).isEqualTo(5);
			assertThat(log.remaining(WINDOW, origin + 150)).as("from %d", origin).isEqualTo(8);
			assertThat(log.nanosUntilMore(WINDOW, origin + 120)).as("from %d", origin).isEqualTo(30);
			assertThat(log.availableAt(WINDOW, origin + 120, 6)).as("from %d", origin).isEqualTo(origin + 150);
		}
	}

}
