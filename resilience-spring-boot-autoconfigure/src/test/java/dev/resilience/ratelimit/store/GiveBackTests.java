package dev.resilience.ratelimit.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.WindowAlgorithm;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Give-back: a call that is cancelled leaves every constraint as if it had never asked, whatever
 * other callers did meanwhile (docs/rate-limiting.md).
 */
class GiveBackTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void bucketTokenGivenBackAfterALaterReservationIsNotLost() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isTrue();
		Reservation first = limiter.reserve("k", 1, Duration.ofSeconds(10));
		Reservation second = limiter.reserve("k", 1, Duration.ofSeconds(10));
		assertThat(first.getDecision().getWait()).isEqualTo(Duration.ofSeconds(1));
		assertThat(second.getDecision().getWait()).isEqualTo(Duration.ofSeconds(2));
		this.ticker.set(Duration.ofMillis(500));

		first.cancel();

		// Without the first call the second would have gone at 1 s and a third at 2 s; the second
		// keeps its slot at 2 s, and the token of the first is there for the third at 2 s too.
		assertThat(limiter.reserve("k", 1, Duration.ofSeconds(10)).getDecision().getWait())
			.isEqualTo(Duration.ofMillis(1500));
		assertThat(limiter.reserve("k", 1, Duration.ofSeconds(10)).getDecision().getWait())
			.isEqualTo(Duration.ofMillis(2500));
	}

	@Test
	void bucketGivesNothingBackOnceItWasFullSince() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(4, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		Reservation taken = limiter.reserve("k", 2, Duration.ZERO);
		assertThat(limiter.tryAcquire("k", 1).getRemaining()).isEqualTo(1);
		this.ticker.set(Duration.ofSeconds(3));
		assertThat(limiter.tryAcquire("k", 1).getRemaining()).isEqualTo(3);

		taken.cancel();

		// The bucket was full at 3 s with or without the call: it stays at 3.
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(3);
	}

	@Test
	void bucketGivesNothingBackForCallsTakenBeforeItFilledUpUnused() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(4, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		Reservation first = limiter.reserve("k", 1, Duration.ZERO);
		Reservation second = limiter.reserve("k", 1, Duration.ZERO);
		this.ticker.set(Duration.ofSeconds(5));

		// Nobody used the bucket since: it filled up by 5 s with or without either call.
		first.cancel();
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(4);
		assertThat(limiter.tryAcquire("k", 3).getRemaining()).isEqualTo(1);
		second.cancel();

		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(1);
	}

	@Test
	void bucketGivenBackAfterOthersTookTokensGetsTheCostBack() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(10, 1, Duration.ofSeconds(1), RefillStrategy.INTERVAL)
			.build());
		Reservation taken = limiter.reserve("k", 3, Duration.ZERO);
		assertThat(limiter.tryAcquire("k", 2).getRemaining()).isEqualTo(5);

		taken.cancel();

		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(8);
	}

	@Test
	void bucketNeverGetsBackMoreThanItWouldHoldWithoutTheCall() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(10, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		Reservation five = limiter.reserve("k", 5, Duration.ZERO);
		this.ticker.set(Duration.ofSeconds(3));
		// 5 + 3 earned = 8, then 4 taken: 4 left
		assertThat(limiter.tryAcquire("k", 4).getRemaining()).isEqualTo(4);

		five.cancel();

		// Without the call: 10 (capped) through 3 s, minus 4 = 6; never the 9 of adding 5 back.
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(6);
	}

	@Test
	void counterWindowGivesBackAnEarlierCallThenTheLatestOne() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		Reservation earlier = limiter.reserve("k", 3, Duration.ZERO);
		Reservation latest = limiter.reserve("k", 2, Duration.ZERO);

		earlier.cancel();
		latest.cancel();

		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(10);
	}

	@Test
	void counterWindowGivesBackAnEarlierCallOfAnEarlierWindowThenTheLatestOne() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		// first used at 0.5 s: its fixed windows are [0.5 s, 1.5 s), [1.5 s, 2.5 s), ...
		this.ticker.set(Duration.ofMillis(500));
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(10);
		limiter.tryAcquire("k", 1);
		this.ticker.set(Duration.ofMillis(600));
		Reservation earlier = limiter.reserve("k", 3, Duration.ZERO);
		this.ticker.set(Duration.ofMillis(1700));
		Reservation latest = limiter.reserve("k", 2, Duration.ZERO);

		earlier.cancel();
		latest.cancel();

		// only the call at 0.5 s is left, in the previous window, weighing 0.8
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(9);
	}

	@Test
	void counterWindowGivesBackAnEarlierCallThenTheLatestOneOnAKeyFirstUsedLater() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		this.ticker.set(Duration.ofMillis(700));
		limiter.tryAcquire("k", 1);
		this.ticker.set(Duration.ofMillis(800));
		Reservation earlier = limiter.reserve("k", 3, Duration.ZERO);
		Reservation latest = limiter.reserve("k", 2, Duration.ZERO);

		earlier.cancel();
		latest.cancel();

		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(9);
	}

	@Test
	void counterWindowGivesBackACallOfTheWindowBeforeTheLatestCallsWindow() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		this.ticker.set(Duration.ofMillis(500));
		limiter.tryAcquire("k", 1);
		this.ticker.set(Duration.ofMillis(600));
		Reservation earlier = limiter.reserve("k", 3, Duration.ZERO);
		this.ticker.set(Duration.ofMillis(1600));
		limiter.tryAcquire("k", 1);
		this.ticker.set(Duration.ofMillis(1700));
		Reservation latest = limiter.reserve("k", 2, Duration.ZERO);

		earlier.cancel();
		latest.cancel();

		// left: 1 at 0.5 s (previous window, weighing 0.8) and 1 at 1.6 s
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(8);
	}

	@Test
	void logWindowKeepsItsTimesInOrderWhenAReservationAheadIsGivenBack() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		Reservation first = limiter.reserve("k", 1, Duration.ZERO);
		this.ticker.set(Duration.ofMillis(100));
		Reservation ahead = limiter.reserve("k", 1, Duration.ofSeconds(5));
		assertThat(ahead.getDecision().getWait()).isEqualTo(Duration.ofMillis(900));
		first.cancel();
		ahead.cancel();
		this.ticker.set(Duration.ofMillis(400));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(1450));
		RateLimitDecision later = limiter.inspect("k");
		assertThat(later.isPermitted()).isTrue();
		assertThat(later.getRemaining()).isEqualTo(1);
		assertThat(later.getQuotas()).singleElement()
			.satisfies((quota) -> assertThat(quota.reset()).isEqualTo(Duration.ZERO));
	}

	@Test
	void logWindowCountsOnlyCallsStillInItAfterReservationsAreGivenBackLatestFirst() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(2, Duration.ofSeconds(5)).build());
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		Reservation first = limiter.reserve("k", 2, Duration.ofSeconds(20));
		assertThat(first.getDecision().getWait()).isEqualTo(Duration.ofSeconds(5));
		Reservation second = limiter.reserve("k", 2, Duration.ofSeconds(20));
		assertThat(second.getDecision().getWait()).isEqualTo(Duration.ofSeconds(10));
		second.cancel();
		first.cancel();
		this.ticker.set(Duration.ofSeconds(1));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();

		// at 6 s both calls (at 0 s and 1 s) have left the 5 s window: the whole quota is left
		this.ticker.set(Duration.ofSeconds(6));
		RateLimitDecision state = limiter.inspect("k");
		assertThat(state.getRemaining()).isEqualTo(2);
		assertThat(state.getQuotas().get(0).reset()).isZero();
	}

	@Test
	void logWindowResetIsWhenTheOldestEntryStillCountingLeaves() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(3, Duration.ofSeconds(4)).build());
		Reservation first = limiter.reserve("k", 1, Duration.ZERO);
		this.ticker.set(Duration.ofSeconds(1));
		Reservation second = limiter.reserve("k", 1, Duration.ZERO);
		this.ticker.set(Duration.ofSeconds(2));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();

		second.cancel();
		first.cancel();

		this.ticker.set(Duration.ofMillis(2500));
		RateLimitDecision state = limiter.inspect("k");
		assertThat(state.getRemaining()).isEqualTo(2);
		// only the call at 2 s still counts: more quota at 6 s
		assertThat(state.getQuotas()).singleElement()
			.satisfies((quota) -> assertThat(quota.reset()).isEqualTo(Duration.ofMillis(3500)));
	}

	@Test
	void counterWindowForgetsACancelledReservationsTime() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		assertThat(limiter.tryAcquire("k", 10).isPermitted()).isTrue();
		Reservation late = limiter.reserve("k", 10, Duration.ofSeconds(5));
		assertThat(late.getDecision().getWait()).isEqualTo(Duration.ofSeconds(2));

		late.cancel();

		// At 1.2 s the previous window weighs 0.8 * 10 = 8: one more fits, as if nobody had asked.
		this.ticker.set(Duration.ofMillis(1200));
		RateLimitDecision next = limiter.tryAcquire("k", 1);
		assertThat(next.isPermitted()).isTrue();
		assertThat(next.getRemaining()).isEqualTo(1);
	}

	@Test
	void counterWindowGivesBackAnEarlierCallUnderALaterOne() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		Reservation first = limiter.reserve("k", 4, Duration.ZERO);
		assertThat(limiter.tryAcquire("k", 3).getRemaining()).isEqualTo(3);

		first.cancel();

		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(7);
	}

	@Test
	void counterWindowGivesBackAnEarlierCallOfAKeyFirstUsedMidPeriod() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		this.ticker.set(Duration.ofMillis(600));
		Reservation first = limiter.reserve("k", 4, Duration.ZERO);
		this.ticker.set(Duration.ofMillis(700));
		assertThat(limiter.tryAcquire("k", 3).getRemaining()).isEqualTo(3);

		first.cancel();

		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(7);
	}

	@Test
	void counterWindowGivesBackCallsOfThePreviousFixedWindow() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		Reservation atTheStart = limiter.reserve("k", 4, Duration.ZERO);
		this.ticker.set(Duration.ofMillis(200));
		Reservation later = limiter.reserve("k", 2, Duration.ZERO);
		// at 1.2s the 6 of [0s, 1s) weigh 0.8: 4.8 + 3 = 7.8 used
		this.ticker.set(Duration.ofMillis(1200));
		assertThat(limiter.tryAcquire("k", 3).getRemaining()).isEqualTo(2);

		atTheStart.cancel();
		later.cancel();

		// only the call in [1s, 2s) counts
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(7);
	}

	@Test
	void counterWindowGivesNothingBackForACallThatNoLongerCounts() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		Reservation old = limiter.reserve("k", 4, Duration.ZERO);
		this.ticker.set(Duration.ofMillis(1500));
		assertThat(limiter.tryAcquire("k", 2).getRemaining()).isEqualTo(6);
		// at 2.2s the 2 of [1s, 2s) weigh 0.8: 1.6 + 1 = 2.6 used; the call at 0s counts no more
		this.ticker.set(Duration.ofMillis(2200));
		assertThat(limiter.tryAcquire("k", 1).getRemaining()).isEqualTo(7);

		old.cancel();

		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(7);
	}

	@Test
	void logWindowForgetsACancelledReservationsTime() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(2, Duration.ofSeconds(1)).build());
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(600));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		Reservation late = limiter.reserve("k", 2, Duration.ofSeconds(5));
		assertThat(late.getDecision().getWait()).isEqualTo(Duration.ofMillis(1000));

		late.cancel();

		// Only the entries at 0 and 0.6 s count again: one slot at 1 s.
		this.ticker.set(Duration.ofSeconds(1));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
	}

	@Test
	void logWindowGivesBackAnEntryInTheMiddle() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(3, Duration.ofSeconds(1)).build());
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(100));
		Reservation middle = limiter.reserve("k", 1, Duration.ZERO);
		this.ticker.set(Duration.ofMillis(200));
		assertThat(limiter.tryAcquire("k", 1).getRemaining()).isZero();

		middle.cancel();
		middle.cancel();

		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(1);
		this.ticker.set(Duration.ofMillis(1000));
		// the entry at 0 left; the one at 0.2 s still counts
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(2);
		this.ticker.set(Duration.ofMillis(1200));
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(3);
	}

	@Test
	void cancelledPermitIsFreeAgainAndCancellingTwiceChangesNothing() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(5, Duration.ofSeconds(1))
			.maxConcurrent(1, Duration.ofMinutes(1))
			.build());
		Reservation held = limiter.reserve("k", 1, Duration.ZERO);
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(1);
		held.cancel();
		held.cancel();
		held.release();
		RateLimitDecision state = limiter.inspect("k");
		assertThat(state.getInFlight()).isZero();
		assertThat(state.getRemaining()).isEqualTo(1);
		assertThat(state.getQuotas()).singleElement().satisfies((quota) -> assertThat(quota.remaining()).isEqualTo(5));
	}

	@Test
	void messageHandlerReservesWithoutBlockingAndCancelsWhenItGivesUp() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		// "how long until I may call?": the handler re-queues its message with the delay
		Reservation reservation = limiter.reserve("k", 1, Duration.ofMinutes(1));
		assertThat(reservation.getDecision().isPermitted()).isTrue();
		assertThat(reservation.getDecision().getWait()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.ticker.sleeps()).isEmpty();
		// the slot is held: another caller comes after it
		assertThat(limiter.reserve("k", 1, Duration.ofMinutes(1)).getDecision().getWait())
			.isEqualTo(Duration.ofSeconds(2));
		reservation.cancel();
		assertThat(limiter.inspect("k").getQuotas()).singleElement()
			.satisfies((quota) -> assertThat(quota.remaining()).isZero());
	}

	private RateLimiter limiter(RateLimiterSettings settings) {
		return TestLimiters.onManualClock(this.ticker, "api", settings);
	}

}
