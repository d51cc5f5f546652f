package dev.resilience.ratelimit.store;

import java.util.ArrayList;
import java.util.List;

import com.netflix.concurrency.limits.limit.Gradient2Limit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings.Algorithm;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The moves of one key's adaptive limit (SPEC §11), fed one ended call at a time at explicit
 * times, for each of Netflix's algorithms: where it starts, how fast it grows, when and how far it
 * is cut, how long the lowest latency counts, and the failure modes of the library the guards of
 * {@link AdaptiveLimit} exist for.
 */
class AdaptiveLimitTests {

	private static final long MS = 1_000_000;

	private static final long SECOND = 1_000 * MS;

	/** The latency of an unloaded partner in these tests. */
	private static final long FAST = 10 * MS;

	/** When the next call of {@link #call} starts: each starts as the one before ended. */
	private long now;

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aKeyStartsAtTheInitialLimit(Algorithm algorithm) {
		AdaptiveConcurrencySettings settings = settings(algorithm, 7, 2, 50);

		AdaptiveLimit limit = new AdaptiveLimit(settings, 123 * SECOND);

		assertThat(limit.limit()).isEqualTo(7);
		assertThat(limit.settings()).isSameAs(settings);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void callsThatFillTheLimitGrowItByAtMostOneEach(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 10, 1, 200), 0);

		List<Integer> limits = fullCalls(limit, 40, FAST);

		for (int i = 1; i < limits.size(); i++) {
			assertThat(limits.get(i) - limits.get(i - 1)).as("move at call %d of %s", i, limits).isBetween(0, 1);
		}
		assertThat(limit.limit()).isGreaterThanOrEqualTo(30);
	}

	@Test
	void aimdGrowsByOnePerCallThatFillsTheLimit() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.AIMD, 10, 1, 200), 0);

		assertThat(fullCalls(limit, 5, FAST)).containsExactly(11, 12, 13, 14, 15);
	}

	@Test
	void vegasProposingSixMoreIsHeldToOneMore() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.VEGAS, 10, 1, 200), 0);

		// Vegas learns the lowest latency from the first call, then proposes 16, 22, 28 (and is
		// restarted at 13, beyond twice that), and learns its lowest latency again
		assertThat(fullCalls(limit, 5, FAST)).containsExactly(10, 11, 12, 13, 13);
	}

	@Test
	void anAlgorithmIsRestartedOnlyBeyondTwiceTheLimit() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.VEGAS, 12, 1, 200), 0);

		// Vegas proposes 18, 24, 30 (twice 15: kept), 36 (restarted at 16)
		assertThat(fullCalls(limit, 6, FAST)).containsExactly(12, 13, 14, 15, 16, 16);
	}

	@Test
	void theAlgorithmLearnsOfTheCallThatCutSoItProposesNoGrowthFromBeforeTheCut() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.VEGAS, 20, 1, 200), 0);
		call(limit, FAST, 1, false);
		call(limit, FAST, 20, true);
		assertThat(limit.limit()).isEqualTo(18);

		// Vegas went down by one at the drop (to 19), and by one a call as it sees a queue
		assertThat(fullCalls(limit, 3, FAST * 19 / 10)).containsExactly(18, 17, 16);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void callsThatLeaveMoreThanHalfTheLimitUnusedDoNotGrowIt(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 10, 1, 200), 0);

		for (int i = 0; i < 40; i++) {
			call(limit, FAST, 4, false);
			assertThat(limit.limit()).isEqualTo(10);
		}
		fullCalls(limit, 2, FAST);
		assertThat(limit.limit()).isGreaterThan(10);
	}

	@Test
	void halfTheLimitInFlightIsALimitInUse() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.AIMD, 10, 1, 200), 0);

		call(limit, FAST, 4, false);
		assertThat(limit.limit()).isEqualTo(10);
		call(limit, FAST, 5, false);
		assertThat(limit.limit()).isEqualTo(11);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void callsThatLeaveMoreThanHalfTheLimitUnusedDoNotGrowItBackAfterACut(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 20, 1, 200), 0);
		call(limit, FAST, 20, true);
		assertThat(limit.limit()).isEqualTo(18);

		// the algorithm was not told of the cut and thinks 20 or more fine: the limit waits for use
		for (int i = 0; i < 20; i++) {
			call(limit, FAST, 8, false);
			assertThat(limit.limit()).isEqualTo(18);
		}
		call(limit, FAST, 9, false);
		assertThat(limit.limit()).isEqualTo(19);
	}

	@ParameterizedTest
	@CsvSource({ "GRADIENT, 20, 18", "VEGAS, 20, 18", "AIMD, 20, 18", "GRADIENT, 5, 4", "VEGAS, 5, 4", "AIMD, 5, 4",
			"GRADIENT, 2, 1", "VEGAS, 11, 9" })
	void aDropCutsTheLimitToNineTenths(Algorithm algorithm, int before, int after) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, before, 1, 200), 0);

		call(limit, FAST, before, true);

		assertThat(limit.limit()).isEqualTo(after);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void cutsStopAtTheMinLimit(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 5, 4, 200), 0);

		for (int i = 0; i < 5; i++) {
			call(limit, FAST, limit.limit(), true);
			assertThat(limit.limit()).isEqualTo(4);
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aLatencyOfMoreThanTwiceTheLowestCutsTheLimit(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 20, 1, 200), 0);
		call(limit, FAST, 1, false);

		call(limit, 2 * FAST, 1, false);
		assertThat(limit.limit()).isEqualTo(20);
		call(limit, 2 * FAST + 1, 1, false);
		assertThat(limit.limit()).isEqualTo(18);
		// and a faster call sets a lower bar
		call(limit, FAST / 2, 1, false);
		call(limit, FAST + 1, 1, false);
		assertThat(limit.limit()).isEqualTo(16);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aBurstOfDropsOfCallsStartedBeforeTheCutIsOneCut(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 20, 1, 200), 0);

		// twenty calls in flight, started a millisecond apart, all dropped 100 ms later
		for (int i = 0; i < 20; i++) {
			limit.onSample(i * MS, (100 + i) * MS, 20 - i, true);
		}
		assertThat(limit.limit()).isEqualTo(18);
		// a call started as the cut was made saw the cut limit: it cuts again
		limit.onSample(100 * MS, 150 * MS, 18, true);
		assertThat(limit.limit()).isEqualTo(16);
		// and so does a call more than twice the lowest latency (50 ms), unless it started before
		// that second cut
		limit.onSample(49 * MS, 190 * MS, 16, false);
		assertThat(limit.limit()).isEqualTo(16);
		limit.onSample(150 * MS, 251 * MS, 16, false);
		assertThat(limit.limit()).isEqualTo(14);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void theLimitGrowsBackFromTheMinLimitOnceCallsStopBeingDropped(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 10, 1, 200), 0);
		List<Integer> cuts = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			call(limit, FAST, limit.limit(), true);
			cuts.add(limit.limit());
		}
		assertThat(cuts).containsExactly(9, 8, 7, 6, 5, 4, 3, 2, 1, 1);

		List<Integer> limits = fullCalls(limit, 20, FAST);

		assertThat(limits).isSorted();
		assertThat(limit.limit()).isGreaterThanOrEqualTo(12);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aPartnerSlowerForGoodIsCongestedUntilTheLowestLatencyIsForgottenThenTheLimitGrows(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 10, 1, 200), 0);
		limit.onSample(0, FAST, 1, false);

		// from now on every call takes three times as long: one a second, starting on the second
		List<Integer> limits = new ArrayList<>();
		for (long second = 1; second < 20; second++) {
			limit.onSample(second * SECOND - 3 * FAST, second * SECOND, limit.limit(), false);
			limits.add(limit.limit());
		}
		// the lowest latency of the first period (until 10 s) counts in the second (until 20 s)
		assertThat(limits).isSortedAccordingTo((a, b) -> b - a);
		assertThat(limit.limit()).isEqualTo(1);

		// the third period knows only the second's lowest: the slower partner is its normal
		limits = new ArrayList<>();
		for (long second = 20; second < 30; second++) {
			limit.onSample(second * SECOND - 3 * FAST, second * SECOND, limit.limit(), false);
			limits.add(limit.limit());
		}
		assertThat(limits).isSorted();
		assertThat(limit.limit()).isGreaterThanOrEqualTo(6);
	}

	@Test
	void theLowestLatencyOfAPeriodCountsUntilTheEndOfTheNext() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.AIMD, 10, 1, 200), 0);
		limit.onSample(0, FAST, 1, false);

		// the second period begins with the first call to end 10 s or more after the first began
		limit.onSample(10 * SECOND - 3 * FAST, 10 * SECOND, 1, false);
		assertThat(limit.limit()).as("at the start of the second period").isEqualTo(9);
		limit.onSample(15 * SECOND - 3 * FAST, 15 * SECOND, 1, false);
		assertThat(limit.limit()).as("within the second").isEqualTo(8);
		limit.onSample(20 * SECOND - 3 * FAST, 20 * SECOND, 1, false);
		assertThat(limit.limit()).as("in the third, which knows only the second's lowest").isEqualTo(8);
	}

	@Test
	void aLowestLatencyTwoPeriodsOldIsForgottenEvenWithoutCallsBetween() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.AIMD, 10, 1, 200), 0);
		limit.onSample(0, FAST, 1, false);

		limit.onSample(20 * SECOND - 1 - 3 * FAST, 20 * SECOND - 1, 1, false);
		assertThat(limit.limit()).as("the first period's lowest counts in the second").isEqualTo(9);

		AdaptiveLimit other = new AdaptiveLimit(settings(Algorithm.AIMD, 10, 1, 200), 0);
		other.onSample(0, FAST, 1, false);
		other.onSample(20 * SECOND - 3 * FAST, 20 * SECOND, 1, false);
		assertThat(other.limit()).as("but not in the third").isEqualTo(10);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void theLimitNeverExceedsTheMaxLimit(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 10, 1, 12), 0);

		List<Integer> limits = fullCalls(limit, 40, FAST);

		assertThat(limits).allSatisfy((value) -> assertThat(value).isLessThanOrEqualTo(12)).contains(12);
	}

	@Test
	void aPartnerQueueingBelowTheCongestionRatioLowersTheLimitAsGradientSays() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.GRADIENT, 10, 1, 200), 0);
		fullCalls(limit, 40, FAST);
		int grown = limit.limit();

		// 1.9 times the lowest latency is no congestion of ours, but Gradient2 sees a queue
		fullCalls(limit, 30, FAST * 19 / 10);

		assertThat(limit.limit()).isLessThan(grown - 5);
	}

	@Test
	void vegasSeeingAQueueStopsTheGrowthEvenWithItsEstimateAheadOfTheLimit() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.VEGAS, 10, 1, 200), 0);
		fullCalls(limit, 40, FAST);
		int grown = limit.limit();

		// Vegas' estimate grows six a call while the limit grows one: it is ahead of the limit, and
		// going down by one a call as it sees a queue
		assertThat(fullCalls(limit, 30, FAST * 19 / 10)).allSatisfy((value) -> assertThat(value).isEqualTo(grown));
	}

	@Test
	void aLimitBelowAnAlgorithmHeldAtTheMaxLimitStillGrows() {
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.AIMD, 11, 1, 12), 0);
		call(limit, FAST, 1, false);
		// a call too slow cuts the limit, while AIMD, which does not look at latency, grows to 12
		call(limit, 3 * FAST, 11, false);
		assertThat(limit.limit()).isEqualTo(9);

		assertThat(fullCalls(limit, 4, FAST)).containsExactly(10, 11, 12, 12);
	}

	@Test
	void gradientNeverCreepsUpWhileTheLatencyStaysAboveTwiceTheLowest() {
		// Netflix concurrency-limits #134: Gradient2's long-term latency follows a queueing partner,
		// and its queue term then adds to the limit at each call. The library alone creeps up:
		Gradient2Limit library = Gradient2Limit.newBuilder().initialLimit(20).minLimit(1).maxConcurrency(200).build();
		library.onSample(0, FAST, 1, false);
		for (int i = 0; i < 500; i++) {
			library.onSample(i * MS, 3 * FAST, library.getLimit(), false);
		}
		assertThat(library.getLimit()).isGreaterThan(100);

		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.GRADIENT, 20, 1, 200), 0);
		limit.onSample(0, FAST, 1, false);
		int previous = limit.limit();
		// calls started a millisecond apart, every one full and three times the lowest latency
		for (int i = 0; i < 500; i++) {
			long start = FAST + i * MS;
			limit.onSample(start, start + 3 * FAST, limit.limit(), false);
			assertThat(limit.limit()).as("limit after call %d", i).isLessThanOrEqualTo(previous);
			previous = limit.limit();
		}
		assertThat(limit.limit()).isEqualTo(1);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void newSettingsKeepTheLimitInForceWithinTheirBounds(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 20, 1, 200), 0);
		call(limit, FAST, 20, true);
		assertThat(limit.limit()).isEqualTo(18);

		AdaptiveConcurrencySettings lowerMax = settings(Algorithm.AIMD, 5, 1, 15);
		AdaptiveLimit changed = limit.withSettings(lowerMax, this.now);
		assertThat(changed.limit()).isEqualTo(15);
		assertThat(changed.settings()).isSameAs(lowerMax);
		assertThat(limit.withSettings(settings(algorithm, 30, 19, 50), this.now).limit()).isEqualTo(19);
		AdaptiveLimit otherInitial = limit.withSettings(settings(algorithm, 5, 1, 200), this.now);
		assertThat(otherInitial.limit()).isEqualTo(18);
		// and goes on from there, one call at a time
		call(otherInitial, FAST, 18, false);
		assertThat(otherInitial.limit()).isBetween(18, 19);
		call(changed, FAST, 15, false);
		assertThat(changed.limit()).isEqualTo(15);
	}

	@Test
	void aCallThatTookNoMeasurableTimeIsACallOfOneNanosecond() {
		// Vegas refuses a latency of zero; a manual or coarse clock gives one
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.VEGAS, 10, 1, 200), 0);

		limit.onSample(5 * MS, 5 * MS, 10, false);
		limit.onSample(5 * MS, 5 * MS, 10, false);

		assertThat(limit.limit()).isEqualTo(11);
	}

	/** Runs calls one after another, each of {@code latency} and with the limit full; returns the limits after each. */
	private List<Integer> fullCalls(AdaptiveLimit limit, int calls, long latency) {
		List<Integer> limits = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			call(limit, latency, limit.limit(), false);
			limits.add(limit.limit());
		}
		return limits;
	}

	/** A call that starts as the one before ended. */
	private void call(AdaptiveLimit limit, long latency, int inFlight, boolean dropped) {
		long start = this.now;
		this.now += latency;
		limit.onSample(start, this.now, inFlight, dropped);
	}

	static AdaptiveConcurrencySettings settings(Algorithm algorithm, int initial, int min, int max) {
		return new AdaptiveConcurrencySettings(algorithm, initial, min, max);
	}

}
