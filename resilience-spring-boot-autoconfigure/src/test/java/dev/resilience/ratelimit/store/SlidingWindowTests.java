package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.WindowSettings;

import static org.assertj.core.api.Assertions.assertThat;

/** Sliding windows through the in-memory store: exact log boundaries and the counter's estimate. */
class SlidingWindowTests {

	private static final long SECOND = 1_000_000_000L;

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void logWindowCountsSameNanosecondTwiceAndFreesSlotsExactlyOnePeriodLater() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.LOG, 2, Duration.ofSeconds(1));
		assertThat(callAt(store, 0, 1).getRemaining()).isEqualTo(1);
		assertThat(callAt(store, 0, 1).getRemaining()).isZero();
		RateLimitDecision third = callAt(store, 0, 1);
		assertThat(third.isPermitted()).isFalse();
		assertThat(third.getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
		RateLimitDecision lastNanosecond = callAt(store, SECOND - 1, 1);
		assertThat(lastNanosecond.isPermitted()).isFalse();
		assertThat(lastNanosecond.getRetryAfter()).isEqualTo(Duration.ofNanos(1));
		RateLimitDecision onePeriodLater = callAt(store, SECOND, 1);
		assertThat(onePeriodLater.isPermitted()).isTrue();
		assertThat(onePeriodLater.getRemaining()).isEqualTo(1);
	}

	@Test
	void logWindowPrunedInPartFindsTheEntriesLeftByTheirSequenceNumbers() {
		WindowSettings window = new WindowSettings(10, Duration.ofNanos(100));
		WindowLog log = new WindowLog();
		// sequences 7..10 at 0, 10, 20, 30 with costs 1, 2, 3, 4
		for (int i = 0; i < 4; i++) {
			log.add(window, 10L * i, i + 1, 7 + i);
		}
		log.prune(window, 115); // the entries at 0 and 10 leave: 7 of 10 still counted
		assertThat(log.remaining(window, 115)).isEqualTo(3);
		assertThat(log.nanosUntilMore(window, 115)).isEqualTo(5);
		log.remove(window, 8, 2, 10); // left already: nothing changes
		assertThat(log.remaining(window, 115)).isEqualTo(3);
		log.remove(window, 10, 4, 30);
		assertThat(log.remaining(window, 115)).isEqualTo(7);
		log.remove(window, 9, 3, 20);
		assertThat(log.remaining(window, 115)).isEqualTo(10);
		assertThat(log.nanosUntilMore(window, 115)).isZero();
		log.add(window, 115, 5, 11);
		assertThat(log.remaining(window, 115)).isEqualTo(5);
		log.prune(window, 215); // every entry leaves
		assertThat(log.remaining(window, 215)).isEqualTo(10);
		log.add(window, 215, 1, 12);
		log.add(window, 216, 2, 13);
		log.remove(window, 11, 5, 115);
		assertThat(log.remaining(window, 216)).isEqualTo(7);
		log.remove(window, 13, 2, 216);
		assertThat(log.remaining(window, 216)).isEqualTo(9);
		assertThat(log.availableAt(window, 216, 10)).isEqualTo(315);
	}

	@Test
	void logWindowRetryAfterIsWhenTheOldestCountedEntryLeaves() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.LOG, 2, Duration.ofSeconds(1));
		assertThat(callAt(store, 0, 1).isPermitted()).isTrue();
		assertThat(callAt(store, ms(400), 1).isPermitted()).isTrue();
		assertThat(callAt(store, ms(900), 1).getRetryAfter()).isEqualTo(Duration.ofMillis(100));
		assertThat(callAt(store, ms(1000), 1).isPermitted()).isTrue();
		RateLimitDecision rejected = callAt(store, ms(1200), 1);
		assertThat(rejected.isPermitted()).isFalse();
		assertThat(rejected.getRetryAfter()).isEqualTo(Duration.ofMillis(200));
		assertThat(rejected.getQuotas()).containsExactly(
				new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.WINDOW, 2, Duration.ofSeconds(1), 0, Duration.ofMillis(200)));
		assertThat(callAt(store, ms(1400), 1).isPermitted()).isTrue();
	}

	@Test
	void logWindowCountsCostNotCalls() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.LOG, 3, Duration.ofSeconds(1));
		assertThat(callAt(store, 0, 2).getRemaining()).isEqualTo(1);
		RateLimitDecision tooExpensive = callAt(store, ms(500), 2);
		assertThat(tooExpensive.isPermitted()).isFalse();
		assertThat(tooExpensive.getRetryAfter()).isEqualTo(Duration.ofMillis(500));
		assertThat(callAt(store, ms(500), 1).getRemaining()).isZero();
		RateLimitDecision afterFirstLeft = callAt(store, ms(1000), 2);
		assertThat(afterFirstLeft.isPermitted()).isTrue();
		assertThat(afterFirstLeft.getRemaining()).isZero();
	}

	@Test
	void logWindowNeverHoldsMoreThanLimitInAnyPeriod() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.LOG, 7, Duration.ofSeconds(1));
		List<Long> admitted = new ArrayList<>();
		for (long t = 0; t < 5 * SECOND; t += ms(10)) {
			if (callAt(store, t, 1).isPermitted()) {
				admitted.add(t);
			}
		}
		List<Long> expected = new ArrayList<>();
		for (long second = 0; second < 5; second++) {
			for (long slot = 0; slot < 7; slot++) {
				expected.add(second * SECOND + slot * ms(10));
			}
		}
		assertThat(admitted).isEqualTo(expected);
	}

	@Test
	void counterWindowWeighsThePreviousWindowByItsOverlap() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.COUNTER, 10, Duration.ofSeconds(1));
		for (int i = 0; i < 10; i++) {
			assertThat(callAt(store, 0, 1).isPermitted()).isTrue();
		}
		// a plain fixed window would admit at 1s; at 1.1s the previous window weighs 0.9 * 10 = 9
		RateLimitDecision full = callAt(store, 0, 1);
		assertThat(full.isPermitted()).isFalse();
		assertThat(full.getRetryAfter()).isEqualTo(Duration.ofMillis(1100));
		this.ticker.set(Duration.ofMillis(1250));
		assertThat(store.inspect("k").getRemaining()).isEqualTo(2);
		this.ticker.set(Duration.ofMillis(1500));
		assertThat(store.inspect("k").getRemaining()).isEqualTo(5);
		for (int i = 0; i < 5; i++) {
			assertThat(callAt(store, ms(1500), 1).isPermitted()).isTrue();
		}
		RateLimitDecision sixth = callAt(store, ms(1500), 1);
		assertThat(sixth.isPermitted()).isFalse();
		assertThat(sixth.getRetryAfter()).isEqualTo(Duration.ofMillis(100));
		assertThat(callAt(store, ms(1600) - 1, 1).getRetryAfter()).isEqualTo(Duration.ofNanos(1));
		assertThat(callAt(store, ms(1600), 1).isPermitted()).isTrue();
	}

	@Test
	void counterWindowRetryAfterSpansTwoWindowsWhenTheCurrentOneIsFull() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.COUNTER, 10, Duration.ofSeconds(1));
		assertThat(callAt(store, 0, 4).isPermitted()).isTrue();
		assertThat(callAt(store, ms(500), 6).isPermitted()).isTrue();
		// current holds 10: at 1s + t the estimate is 10 * (1 - t) and 4 must fit, so t = 0.4s
		assertThat(callAt(store, ms(600), 4).getRetryAfter()).isEqualTo(Duration.ofMillis(800));
		assertThat(callAt(store, ms(1400) - 1, 4).isPermitted()).isFalse();
		assertThat(callAt(store, ms(1400), 4).isPermitted()).isTrue();
	}

	@Test
	void counterWindowAdmitsMoreThanLimitWhenPreviousWindowWasBackLoaded() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.COUNTER, 10, Duration.ofSeconds(1));
		assertThat(callAt(store, 0, 1).isPermitted()).isTrue();
		assertThat(callAt(store, ms(999), 9).isPermitted()).isTrue();
		int admitted = 0;
		while (callAt(store, ms(1500), 1).isPermitted()) {
			admitted++;
		}
		// the estimate spreads the 10 evenly, so it admits 5 although 9 + 5 = 14 fall within (0.5s, 1.5s]
		assertThat(admitted).isEqualTo(5);
	}

	@Test
	void counterWindowsOfAKeyStartAtItsFirstUse() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.COUNTER, 10, Duration.ofSeconds(1));
		assertThat(callAt(store, ms(300), 6).getRemaining()).isEqualTo(4);
		// the fixed windows are [0.3s, 1.3s) and [1.3s, 2.3s): at 1.8s the first one weighs half, 6 * 0.5 = 3
		this.ticker.set(Duration.ofMillis(1800));
		assertThat(store.inspect("k").getRemaining()).isEqualTo(7);
	}

	@Test
	void counterWindowCallAtTheStartOfTheNextFixedWindowCountsThere() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.COUNTER, 10, Duration.ofSeconds(1));
		assertThat(callAt(store, 0, 4).isPermitted()).isTrue();
		assertThat(callAt(store, ms(1000), 3).getRemaining()).isEqualTo(3);
		// at 1.5s the 4 of [0s, 1s) weigh half and the 3 of [1s, 2s) count fully: 2 + 3 = 5
		this.ticker.set(Duration.ofMillis(1500));
		assertThat(store.inspect("k").getRemaining()).isEqualTo(5);
	}

	@Test
	void counterWindowReservationIntoTheNextFixedWindowCountsThere() {
		InMemoryRateLimitStore store = store(WindowAlgorithm.COUNTER, 10, Duration.ofSeconds(1));
		assertThat(callAt(store, 0, 10).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(100));
		// in [1s, 2s) the 10 of [0s, 1s) weigh 10 * (1 - t): one more fits from 1.1s
		RateLimitDecision reserved = store.reserve("k", 1, Duration.ofSeconds(5).toNanos()).getDecision();
		assertThat(reserved.isPermitted()).isTrue();
		assertThat(reserved.getWait()).isEqualTo(Duration.ofSeconds(1));
		// at 2s the reserved call is the whole previous fixed window
		this.ticker.set(Duration.ofSeconds(2));
		assertThat(store.inspect("k").getRemaining()).isEqualTo(9);
		this.ticker.set(Duration.ofSeconds(3));
		assertThat(store.inspect("k").getRemaining()).isEqualTo(10);
	}

	@Test
	void counterWindowResetIsWhenTheFixedWindowOfTheLatestCallsEnds() {
		// The counter cannot tell when its estimate next drops by a whole call; it reports when the
		// fixed window holding the latest calls ends, from when their count starts to fade.
		InMemoryRateLimitStore store = store(WindowAlgorithm.COUNTER, 10, Duration.ofSeconds(1));
		this.ticker.set(Duration.ofMillis(200));
		assertThat(store.inspect("k").getQuotas()).containsExactly(
				new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.WINDOW, 10, Duration.ofSeconds(1), 10, Duration.ZERO));
		// the key's fixed windows start at its first use: [0.2s, 1.2s), [1.2s, 2.2s), ...
		assertThat(callAt(store, ms(200), 3).getQuotas()).containsExactly(
				new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.WINDOW, 10, Duration.ofSeconds(1), 7, Duration.ofSeconds(1)));
		assertThat(callAt(store, ms(1200), 3).isPermitted()).isTrue();
		// at 1.5s: 3 * 0.7 + 3 = 5.1 used, and [1.2s, 2.2s) ends in 0.7s
		this.ticker.set(Duration.ofMillis(1500));
		assertThat(store.inspect("k").getQuotas()).containsExactly(
				new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.WINDOW, 10, Duration.ofSeconds(1), 4, Duration.ofMillis(700)));
		// both fixed windows have faded by 3.2s
		this.ticker.set(Duration.ofMillis(3200));
		assertThat(store.inspect("k").getQuotas()).containsExactly(
				new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.WINDOW, 10, Duration.ofSeconds(1), 10, Duration.ZERO));
	}

	@ParameterizedTest
	@EnumSource(WindowAlgorithm.class)
	void windowLongerThanALongOfNanosecondsKeepsItsEntries(WindowAlgorithm algorithm) {
		// a period of 1000 years saturates to Long.MAX_VALUE ns; the clock reads like System.nanoTime()
		long start = Duration.ofHours(5).toNanos();
		InMemoryRateLimitStore store = store(algorithm, 2, Duration.ofDays(365L * 1000));
		assertThat(callAt(store, start, 1).isPermitted()).isTrue();
		assertThat(callAt(store, start, 1).isPermitted()).isTrue();
		RateLimitDecision third = callAt(store, start, 1);
		assertThat(third.isPermitted()).isFalse();
		assertThat(third.getRetryAfter()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE - start));
		long dayLater = start + Duration.ofDays(1).toNanos();
		assertThat(callAt(store, dayLater, 1).getRetryAfter()).isEqualTo(Duration.ofNanos(Long.MAX_VALUE - dayLater));
		assertThat(store.keyCount().getAsLong()).isEqualTo(1);
	}

	private RateLimitDecision callAt(InMemoryRateLimitStore store, long nanos, long cost) {
		this.ticker.set(nanos);
		return store.reserve("k", cost, 0).getDecision();
	}

	private InMemoryRateLimitStore store(WindowAlgorithm algorithm, long limit, Duration period) {
		RateLimiterSettings settings = RateLimiterSettings.builder()
			.window(limit, period)
			.windowAlgorithm(algorithm)
			.build();
		return new InMemoryRateLimitStore("api", settings, this.ticker);
	}

	private static long ms(long millis) {
		return millis * 1_000_000L;
	}

}
