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
 * times, for each of Netflix's algorithms: the probe that measures the lowest latency (and when the
 * next one comes), how fast the limit grows before and after its first cut, when and how far it is
 * cut, and the failure modes of the library the guards of {@link AdaptiveLimit} exist for. Most
 * tests start from a key past its first probe ({@link #probed}), whose limit is at
 * {@code initial-limit} and whose lowest latency is {@link #FAST}.
 */
class AdaptiveLimitTests {

	private static final long MS = 1_000_000;

	private static final long SECOND = 1_000 * MS;

	/** The latency of an unloaded partner in these tests. */
	private static final long FAST = 10 * MS;

	/** When the next call of {@link #call} starts: each starts as the one before ended. */
	private long now;

	// The probe

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aKeyStartsWithAProbeAtTheMinLimitThenIsAtTheInitialLimit(Algorithm algorithm) {
		AdaptiveConcurrencySettings settings = settings(algorithm, 7, 2, 50);
		this.now = 123 * SECOND;

		AdaptiveLimit limit = new AdaptiveLimit(settings, this.now);

		assertThat(limit.settings()).isSameAs(settings);
		for (int i = 0; i < AdaptiveLimit.PROBE_CALLS; i++) {
			assertThat(limit.limit()).as("before probe call %d ended", i).isEqualTo(2);
			call(limit, FAST, 1, false);
		}
		assertThat(limit.limit()).isEqualTo(7);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void theProbesCallsTeachNothingButTheLowestLatency(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 10, 1, 200), this.now);

		// drops and slow calls during the probe neither cut nor count as congested
		call(limit, 3 * FAST, 1, true);
		call(limit, 2 * FAST, 1, true);
		call(limit, FAST, 1, false);
		call(limit, 4 * FAST, 1, false);
		call(limit, 3 * FAST, 1, false);

		assertThat(limit.limit()).isEqualTo(10);
		// the lowest of the probe's calls is the lowest latency: twice it is not congested, more is
		call(limit, 2 * FAST, 1, false);
		assertThat(limit.limit()).isEqualTo(10);
		call(limit, 2 * FAST + 1, 1, false);
		assertThat(limit.limit()).isEqualTo(9);
	}

	@Test
	void theNextProbeBeginsWithTheFirstCallToEndTenSecondsAfterTheLastEnded() {
		AdaptiveLimit limit = probed(Algorithm.AIMD, 10, 1, 200);
		// the probe took 5 × 10 ms, and 50 times that is less than 10 s
		long nextProbe = this.now + AdaptiveLimit.PROBE_INTERVAL_NANOS;

		limit.onSample(nextProbe - 1 - FAST, nextProbe - 1, 10, false);
		assertThat(limit.limit()).as("a call learnt just before").isEqualTo(11);
		limit.onSample(nextProbe - FAST, nextProbe, 11, true);
		assertThat(limit.limit()).as("the call that begins the probe").isEqualTo(1);

		this.now = nextProbe;
		probe(limit, FAST);
		assertThat(limit.limit()).as("the drop that began the probe is not learnt").isEqualTo(11);
	}

	@Test
	void aLongProbeIsFiftyTimesItsLengthFromTheNext() {
		this.now = 1_000 * SECOND;
		AdaptiveLimit limit = new AdaptiveLimit(settings(Algorithm.AIMD, 10, 1, 200), this.now);
		// five calls of 100 ms: a probe of 500 ms, the next one 25 s after it ended
		probe(limit, 100 * MS);
		long nextProbe = this.now + AdaptiveLimit.PROBE_INTERVAL_FACTOR * 500 * MS;
		assertThat(nextProbe - this.now).isGreaterThan(AdaptiveLimit.PROBE_INTERVAL_NANOS);

		limit.onSample(nextProbe - 1 - 100 * MS, nextProbe - 1, 10, false);
		assertThat(limit.limit()).isEqualTo(11);
		limit.onSample(nextProbe - 100 * MS, nextProbe, 11, false);
		assertThat(limit.limit()).isEqualTo(1);
	}

	@Test
	void callsStartedBeforeTheProbeBeganAreNotLearntNorCounted() {
		AdaptiveLimit limit = probed(Algorithm.AIMD, 10, 1, 200);
		long probeStart = this.now + AdaptiveLimit.PROBE_INTERVAL_NANOS;
		limit.onSample(probeStart - FAST, probeStart, 10, false);
		assertThat(limit.limit()).isEqualTo(1);

		// calls that were in flight when the probe began: one fast, one dropped
		limit.onSample(probeStart - MS, probeStart + 4 * MS, 2, false);
		limit.onSample(probeStart - MS, probeStart + 5 * MS, 1, true);
		this.now = probeStart + 5 * MS;
		for (int i = 0; i < AdaptiveLimit.PROBE_CALLS - 1; i++) {
			call(limit, FAST, 1, false);
		}
		assertThat(limit.limit()).as("four calls of the probe ended").isEqualTo(1);
		call(limit, FAST, 1, false);
		assertThat(limit.limit()).as("not cut by the drop").isEqualTo(10);
		// the lowest latency is the probe's 10 ms, not the 5 ms of the call started before it
		call(limit, 3 * FAST / 2, 1, false);
		assertThat(limit.limit()).isEqualTo(10);
	}

	@Test
	void theProbesLowestReplacesTheLowestSeenAndAFasterCallLowersIt() {
		AdaptiveLimit limit = probed(Algorithm.AIMD, 10, 1, 200);
		call(limit, FAST / 2, 1, false);
		call(limit, FAST + 1, 1, false);
		assertThat(limit.limit()).as("above twice a faster call's latency").isEqualTo(9);

		this.now += AdaptiveLimit.PROBE_INTERVAL_NANOS;
		call(limit, FAST, 1, false);
		// a probe whose lowest is higher than the lowest seen: 12 ms
		call(limit, 3 * FAST, 1, false);
		call(limit, 12 * MS, 1, false);
		call(limit, 4 * FAST, 1, false);
		call(limit, 5 * FAST, 1, false);
		call(limit, 6 * FAST, 1, false);
		assertThat(limit.limit()).isEqualTo(9);
		call(limit, 24 * MS, 1, false);
		assertThat(limit.limit()).isEqualTo(9);
		call(limit, 24 * MS + 1, 1, false);
		assertThat(limit.limit()).isEqualTo(8);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aPartnerSlowerForGoodIsCongestedUntilTheNextProbeThenTheLimitGrows(Algorithm algorithm) {
		AdaptiveLimit limit = probed(algorithm, 10, 1, 200);

		// from now on every call takes three times as long
		List<Integer> limits = fullCalls(limit, 9, 3 * FAST);
		assertThat(limits).isSortedAccordingTo((a, b) -> b - a);
		assertThat(limit.limit()).isEqualTo(1);

		// the next probe measures the slower partner: its latency is the normal
		this.now += AdaptiveLimit.PROBE_INTERVAL_NANOS;
		call(limit, 3 * FAST, 1, false);
		probe(limit, 3 * FAST);
		limits = fullCalls(limit, 30, 3 * FAST);
		assertThat(limits).isSorted();
		assertThat(limit.limit()).isGreaterThanOrEqualTo(6);
	}

	// Growth

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void callsThatFillTheLimitGrowItByAtMostOneEach(Algorithm algorithm) {
		AdaptiveLimit limit = probed(algorithm, 10, 1, 200);

		List<Integer> limits = fullCalls(limit, 40, FAST);

		for (int i = 1; i < limits.size(); i++) {
			assertThat(limits.get(i) - limits.get(i - 1)).as("move at call %d of %s", i, limits).isBetween(0, 1);
		}
		assertThat(limit.limit()).isGreaterThanOrEqualTo(30);
	}

	@Test
	void aimdGrowsByOnePerCallThatFillsTheLimitUntilTheFirstCut() {
		AdaptiveLimit limit = probed(Algorithm.AIMD, 10, 1, 200);

		assertThat(fullCalls(limit, 5, FAST)).containsExactly(11, 12, 13, 14, 15);
	}

	@Test
	void afterTheFirstCutTheLimitGrowsByOnePerRoundTrip() {
		AdaptiveLimit limit = probed(Algorithm.AIMD, 20, 1, 200);
		call(limit, FAST, 20, true);
		assertThat(limit.limit()).isEqualTo(18);

		// 1/18 a call that fills the limit: 18 calls, then 1/19 a call (a rounding of the sum of
		// nineteen 1/19 may take one more call)
		List<Integer> limits = fullCalls(limit, 18 + 20, FAST);

		assertThat(limits.indexOf(19)).isEqualTo(17);
		assertThat(limits.indexOf(20) - limits.indexOf(19)).isBetween(19, 20);
		assertThat(limits).isSorted();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void callsThatLeaveTheLimitUnfilledDoNotGrowIt(Algorithm algorithm) {
		AdaptiveLimit limit = probed(algorithm, 10, 1, 200);

		for (int i = 0; i < 40; i++) {
			call(limit, FAST, 9, false);
			assertThat(limit.limit()).isEqualTo(10);
		}
		fullCalls(limit, 2, FAST);
		assertThat(limit.limit()).isGreaterThan(10);
	}

	@Test
	void onlyAFullLimitIsALimitInUse() {
		AdaptiveLimit limit = probed(Algorithm.AIMD, 10, 1, 200);

		call(limit, FAST, 9, false);
		assertThat(limit.limit()).isEqualTo(10);
		call(limit, FAST, 10, false);
		assertThat(limit.limit()).isEqualTo(11);
		call(limit, FAST, 12, false);
		assertThat(limit.limit()).isEqualTo(12);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void callsThatLeaveTheLimitUnfilledDoNotGrowItBackAfterACut(Algorithm algorithm) {
		AdaptiveLimit limit = probed(algorithm, 20, 1, 200);
		call(limit, FAST, 20, true);
		assertThat(limit.limit()).isEqualTo(18);

		// the algorithm was not told of the cut and thinks more is fine: the limit waits for use
		for (int i = 0; i < 40; i++) {
			call(limit, FAST, 17, false);
			assertThat(limit.limit()).isEqualTo(18);
		}
	}

	@Test
	void vegasProposingSixMoreIsHeldToOneMore() {
		AdaptiveLimit limit = probed(Algorithm.VEGAS, 10, 1, 200);

		// Vegas learns the lowest latency from the first call, then proposes 16, 22, 28 (and is
		// restarted at 13, beyond twice that), and learns its lowest latency again
		assertThat(fullCalls(limit, 5, FAST)).containsExactly(10, 11, 12, 13, 13);
	}

	@Test
	void anAlgorithmIsRestartedOnlyBeyondTwiceTheLimit() {
		AdaptiveLimit limit = probed(Algorithm.VEGAS, 12, 1, 200);

		// Vegas proposes 18, 24, 30 (twice 15: kept), 36 (restarted at 16)
		assertThat(fullCalls(limit, 6, FAST)).containsExactly(12, 13, 14, 15, 16, 16);
	}

	@Test
	void theAlgorithmLearnsOfTheCallThatCutSoItProposesNoGrowthFromBeforeTheCut() {
		AdaptiveLimit limit = probed(Algorithm.VEGAS, 20, 1, 200);
		call(limit, FAST, 1, false);
		call(limit, FAST, 20, true);
		assertThat(limit.limit()).isEqualTo(18);

		// Vegas went down by one at the drop (to 19), and by one a call as it sees a queue
		assertThat(fullCalls(limit, 3, FAST * 19 / 10)).containsExactly(18, 17, 16);
	}

	@Test
	void aPartnerQueueingBelowTheCongestionRatioLowersTheLimitAsGradientSays() {
		AdaptiveLimit limit = probed(Algorithm.GRADIENT, 10, 1, 200);
		fullCalls(limit, 40, FAST);
		int grown = limit.limit();

		// 1.9 times the lowest latency is no congestion of ours, but Gradient2 sees a queue
		fullCalls(limit, 30, FAST * 19 / 10);

		assertThat(limit.limit()).isLessThan(grown - 5);
	}

	@Test
	void vegasSeeingAQueueStopsTheGrowthEvenWithItsEstimateAheadOfTheLimit() {
		AdaptiveLimit limit = probed(Algorithm.VEGAS, 10, 1, 200);
		fullCalls(limit, 40, FAST);
		int grown = limit.limit();

		// Vegas' estimate grows six a call while the limit grows one: it is ahead of the limit, and
		// going down by one a call as it sees a queue
		assertThat(fullCalls(limit, 30, FAST * 19 / 10)).allSatisfy((value) -> assertThat(value).isEqualTo(grown));
	}

	@Test
	void aLimitBelowAnAlgorithmHeldAtTheMaxLimitStillGrows() {
		AdaptiveLimit limit = probed(Algorithm.AIMD, 11, 1, 12);
		call(limit, FAST, 1, false);
		// a call too slow cuts the limit, while AIMD, which does not look at latency, grows to 12
		call(limit, 3 * FAST, 11, false);
		assertThat(limit.limit()).isEqualTo(9);

		// one a round trip: 9 calls, then 10, then 11
		List<Integer> limits = fullCalls(limit, 9 + 10 + 11 + 5, FAST);
		assertThat(limits).isSorted().contains(10, 11).endsWith(12, 12, 12, 12, 12);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void theLimitNeverExceedsTheMaxLimit(Algorithm algorithm) {
		AdaptiveLimit limit = probed(algorithm, 10, 1, 12);

		List<Integer> limits = fullCalls(limit, 40, FAST);

		assertThat(limits).allSatisfy((value) -> assertThat(value).isLessThanOrEqualTo(12)).contains(12);
	}

	// Cuts

	@ParameterizedTest
	@CsvSource({ "GRADIENT, 20, 18", "VEGAS, 20, 18", "AIMD, 20, 18", "GRADIENT, 5, 4", "VEGAS, 5, 4", "AIMD, 5, 4",
			"GRADIENT, 2, 1", "VEGAS, 11, 9" })
	void aDropAtTheLowestLatencyCutsTheLimitToNineTenths(Algorithm algorithm, int before, int after) {
		AdaptiveLimit limit = probed(algorithm, before, 1, 200);

		call(limit, FAST, before, true);

		assertThat(limit.limit()).isEqualTo(after);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void cutsStopAtTheMinLimit(Algorithm algorithm) {
		AdaptiveLimit limit = probed(algorithm, 5, 4, 200);

		for (int i = 0; i < 5; i++) {
			call(limit, FAST, limit.limit(), true);
			assertThat(limit.limit()).isEqualTo(4);
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aLatencyOfMoreThanTwiceTheLowestCutsTheLimit(Algorithm algorithm) {
		AdaptiveLimit limit = probed(algorithm, 20, 1, 200);

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
	@CsvSource({ "25, 32", "30, 26", "40, 20", "100, 20", "1000, 20" })
	void aCutKeepsTwiceTheLowestLatencyOverTheCallsBetweenNineTenthsAndHalfTheLimit(long latencyMillis, int after) {
		AdaptiveLimit limit = probed(Algorithm.AIMD, 40, 1, 200);

		// the first call after the probe is the whole recent latency
		call(limit, latencyMillis * MS, 1, false);

		assertThat(limit.limit()).isEqualTo(after);
	}

	@Test
	void aCutIsSizedByTheRecentLatencyUnlessTheCallsOwnIsLower() {
		AdaptiveLimit limit = probed(Algorithm.AIMD, 40, 1, 200);
		for (int i = 0; i < 10; i++) {
			call(limit, FAST, 1, false);
		}
		assertThat(limit.limit()).isEqualTo(40);

		// one call stalled says little: recent 19 ms, a tenth off; then the recent latency catches
		// up (27.1, 34.39, 40.95 ms) and the cuts deepen to half
		List<Integer> limits = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			call(limit, 10 * FAST, 1, false);
			limits.add(limit.limit());
		}
		assertThat(limits).containsExactly(36, 26, 15, 7);
		// a call faster than the recent latency (39.4 ms) sizes the cut by its own: 20/25 kept
		call(limit, 25 * MS, 1, false);
		assertThat(limit.limit()).isEqualTo(5);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aBurstOfDropsOfCallsStartedBeforeTheCutIsOneCut(Algorithm algorithm) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, 20, 1, 200), 0);
		probe(limit, 50 * MS);
		long t = this.now;

		// twenty calls in flight, started a millisecond apart, all dropped 100 ms later
		for (int i = 0; i < 20; i++) {
			limit.onSample(t + i * MS, t + (100 + i) * MS, 20 - i, true);
		}
		assertThat(limit.limit()).isEqualTo(18);
		// a call started as the cut was made saw the cut limit: it cuts again
		limit.onSample(t + 100 * MS, t + 150 * MS, 18, true);
		assertThat(limit.limit()).isEqualTo(16);
		// and so does a call more than twice the lowest latency (50 ms), unless it started before
		// that second cut
		limit.onSample(t + 49 * MS, t + 190 * MS, 16, false);
		assertThat(limit.limit()).isEqualTo(16);
		limit.onSample(t + 150 * MS, t + 251 * MS, 16, false);
		assertThat(limit.limit()).isEqualTo(14);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void theLimitGrowsBackFromTheMinLimitOnceCallsStopBeingDropped(Algorithm algorithm) {
		AdaptiveLimit limit = probed(algorithm, 10, 1, 200);
		List<Integer> cuts = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			call(limit, FAST, limit.limit(), true);
			cuts.add(limit.limit());
		}
		assertThat(cuts).containsExactly(9, 8, 7, 6, 5, 4, 3, 2, 1, 1);

		// one a round trip: 1 + 2 + 3 + 4 + 5 calls to 6 (or, rounding the sums of 1/limit, one
		// call short of it)
		List<Integer> limits = fullCalls(limit, 15, FAST);

		assertThat(limits).isSorted();
		assertThat(limit.limit()).isBetween(5, 6);
	}

	@Test
	void gradientAloneCreepsUpWhileTheLatencyStaysAboveTwiceTheLowestAndOursDoesNot() {
		// Netflix concurrency-limits #134: Gradient2's long-term latency follows a queueing partner,
		// and its queue term then adds to the limit at each call. The library alone creeps up:
		Gradient2Limit library = Gradient2Limit.newBuilder().initialLimit(20).minLimit(1).maxConcurrency(200).build();
		library.onSample(0, FAST, 1, false);
		for (int i = 0; i < 500; i++) {
			library.onSample(i * MS, 3 * FAST, library.getLimit(), false);
		}
		assertThat(library.getLimit()).isGreaterThan(100);

		AdaptiveLimit limit = probed(Algorithm.GRADIENT, 20, 1, 200);
		int previous = limit.limit();
		// calls started a millisecond apart, every one full and three times the lowest latency
		for (int i = 0; i < 500; i++) {
			long start = this.now + i * MS;
			limit.onSample(start, start + 3 * FAST, limit.limit(), false);
			assertThat(limit.limit()).as("limit after call %d", i).isLessThanOrEqualTo(previous);
			previous = limit.limit();
		}
		assertThat(limit.limit()).isEqualTo(1);
	}

	// Settings, and calls that never ran

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void newSettingsKeepTheLimitInForceWithinTheirBoundsAfterAProbe(Algorithm algorithm) {
		AdaptiveLimit limit = probed(algorithm, 20, 1, 200);
		call(limit, FAST, 20, true);
		assertThat(limit.limit()).isEqualTo(18);

		// a new algorithm knows no lowest latency: it probes, then goes on from the limit learnt
		AdaptiveConcurrencySettings lowerMax = settings(Algorithm.AIMD, 5, 1, 15);
		AdaptiveLimit changed = limit.withSettings(lowerMax, this.now);
		assertThat(changed.settings()).isSameAs(lowerMax);
		probe(changed, FAST);
		assertThat(changed.limit()).isEqualTo(15);
		AdaptiveLimit higherMin = limit.withSettings(settings(algorithm, 30, 19, 50), this.now);
		probe(higherMin, FAST);
		assertThat(higherMin.limit()).isEqualTo(19);
		AdaptiveLimit otherInitial = limit.withSettings(settings(algorithm, 5, 1, 200), this.now);
		probe(otherInitial, FAST);
		assertThat(otherInitial.limit()).isEqualTo(18);
		// and goes on from there, one call at a time
		call(otherInitial, FAST, 18, false);
		assertThat(otherInitial.limit()).isBetween(18, 19);
		call(changed, FAST, 15, false);
		assertThat(changed.limit()).isEqualTo(15);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aCallReturnedBeforeItsReservedStartIsNoSample(Algorithm algorithm) {
		AdaptiveLimit probing = new AdaptiveLimit(settings(algorithm, 10, 1, 200), 0);
		for (int i = 0; i < AdaptiveLimit.PROBE_CALLS; i++) {
			probing.onSample(5 * MS, 5 * MS, 1, false);
		}
		assertThat(probing.limit()).as("no call of the probe ended").isEqualTo(1);

		AdaptiveLimit limit = probed(algorithm, 10, 1, 200);
		limit.onSample(this.now + 5 * MS, this.now + 5 * MS, 10, true);
		limit.onSample(this.now + 5 * MS, this.now + 4 * MS, 10, true);
		assertThat(limit.limit()).isEqualTo(10);
		// nor does it set a lowest latency of 0 or 1 ns: a call of 20 ms is still not congested
		call(limit, 2 * FAST, 1, false);
		assertThat(limit.limit()).isEqualTo(10);
	}

	/** A key past its first probe, which measured {@link #FAST}: its limit is at {@code initial-limit}. */
	private AdaptiveLimit probed(Algorithm algorithm, int initial, int min, int max) {
		AdaptiveLimit limit = new AdaptiveLimit(settings(algorithm, initial, min, max), this.now);
		probe(limit, FAST);
		assertThat(limit.limit()).as("after the probe").isEqualTo(initial);
		return limit;
	}

	/**
	 * Runs a probe in progress to its end: {@value AdaptiveLimit#PROBE_CALLS} calls one at a time
	 * of {@code latency}, at {@code min-limit} until the last.
	 */
	private void probe(AdaptiveLimit limit, long latency) {
		for (int i = 0; i < AdaptiveLimit.PROBE_CALLS; i++) {
			assertThat(limit.limit()).as("during the probe").isEqualTo(limit.settings().minLimit());
			call(limit, latency, 1, false);
		}
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
