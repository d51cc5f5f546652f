package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.resilience.ManualTicker;
import dev.resilience.Ticker;
import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitDecision.Quota;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.Throttle;
import dev.resilience.ratelimit.WindowAlgorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The rate-limiting rules (docs/rate-limiting.md) that every store must keep, run against each store by a subclass. The
 * time is real (a remote store decides on its server's clock, which a test cannot move), so the
 * tests count within periods far longer than a run, and the few that need time to pass use short
 * periods with generous bounds; those that need exact times decide on a {@link ManualTicker} (see
 * {@link #storeFactory(Ticker)}).
 */
public abstract class StoreContractTests {

	private static final AtomicLong names = new AtomicLong();

	/**
	 * Returns the type of the store under test.
	 * @return the store type
	 */
	protected abstract String storeType();

	/**
	 * Returns the factory of the store under test.
	 * @return the factory
	 */
	protected abstract RateLimitStoreFactory storeFactory();

	/**
	 * Returns a factory of the store under test that decides on a clock the test moves: the
	 * application's for a local store, the server's for a remote one.
	 * @param clock the clock
	 * @return the factory
	 */
	protected abstract RateLimitStoreFactory storeFactory(Ticker clock);

	private RateLimiterRegistry registry(String name, RateLimiterSettings.Builder settings) {
		return StoreRateLimiterRegistry.builder()
			.store(storeType(), storeFactory())
			.limiter(name, settings.store(storeType()).build())
			.build();
	}

	/**
	 * Creates a limiter as {@link #limiter(RateLimiterSettings.Builder)} does, deciding on a clock.
	 * @param clock the clock
	 * @param settings the limiter's settings
	 * @return the limiter
	 */
	protected RateLimiter limiter(ManualTicker clock, RateLimiterSettings.Builder settings) {
		String name = "contract-" + names.incrementAndGet() + "-" + System.nanoTime();
		return StoreRateLimiterRegistry.builder()
			.ticker(clock)
			.sleeper(clock.sleeper())
			.store(storeType(), storeFactory(clock))
			.limiter(name, settings.store(storeType()).build())
			.build()
			.get(name);
	}

	/**
	 * Creates a limiter of a name used by no other test, so that tests sharing a server do not share keys.
	 * @param settings the limiter's settings
	 * @return the limiter
	 */
	protected RateLimiter limiter(RateLimiterSettings.Builder settings) {
		String name = "contract-" + names.incrementAndGet() + "-" + System.nanoTime();
		return registry(name, settings).get(name);
	}

	@Test
	void greedyBucketAdmitsItsCapacityThenTellsWhenTheNextTokenComes() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(5, 1, Duration.ofHours(1), RefillStrategy.GREEDY));
		for (int i = 0; i < 5; i++) {
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		RateLimitDecision rejected = limiter.tryAcquire("k", 1);
		assertThat(rejected.isPermitted()).isFalse();
		assertThat(rejected.getRetryAfter()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
		assertThat(rejected.getRemaining()).isZero();
	}

	@Test
	void intervalBucketAddsWholeRefillsPerPeriod() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(4, 2, Duration.ofHours(1), RefillStrategy.INTERVAL));
		assertThat(limiter.tryAcquire("k", 3).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isFalse();
		RateLimitDecision last = limiter.tryAcquire("k", 1);
		assertThat(last.isPermitted()).isTrue();
		assertThat(last.getQuotas()).singleElement().satisfies((quota) -> {
			assertThat(quota.remaining()).isZero();
			assertThat(quota.reset()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
		});
	}

	@Test
	void exactWindowCountsConcurrentCallsSeparately() throws InterruptedException {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(50, Duration.ofHours(1)));
		AtomicInteger admitted = new AtomicInteger();
		runConcurrently(16, 10, () -> {
			if (limiter.tryAcquire("k", 1).isPermitted()) {
				admitted.incrementAndGet();
			}
		});
		assertThat(admitted).hasValue(50);
		RateLimitDecision state = limiter.inspect("k");
		assertThat(state.isPermitted()).isFalse();
		assertThat(state.getQuotas()).extracting(Quota::remaining).containsExactly(0L);
	}

	@Test
	void counterWindowAdmitsItsLimitInAFreshWindow() throws InterruptedException {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(20, Duration.ofHours(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER));
		AtomicInteger admitted = new AtomicInteger();
		runConcurrently(8, 5, () -> {
			if (limiter.tryAcquire("k", 1).isPermitted()) {
				admitted.incrementAndGet();
			}
		});
		assertThat(admitted).hasValue(20);
	}

	@Test
	void rejectedCallConsumesNothingAnywhere() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(10, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(3, Duration.ofHours(1))
			.window(5, Duration.ofHours(2)));
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		for (int i = 0; i < 5; i++) {
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
		}
		assertThat(limiter.inspect("k").getQuotas()).extracting(Quota::remaining).containsExactly(7L, 0L, 2L);
	}

	@Test
	void quotasDescribeEachConstraint() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(1, 3, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(7, Duration.ofMinutes(90)));
		assertThat(limiter.inspect("k").getQuotas()).containsExactly(
				new Quota(Quota.Type.TOKEN_BUCKET, 1, Duration.ofNanos(333_333_334), 1, Duration.ZERO),
				new Quota(Quota.Type.WINDOW, 7, Duration.ofMinutes(90), 7, Duration.ZERO));
		RateLimiter even = limiter(RateLimiterSettings.builder()
			.tokenBucket(5, 2, Duration.ofSeconds(1), RefillStrategy.INTERVAL));
		assertThat(even.inspect("k").getQuotas().get(0).window()).isEqualTo(Duration.ofMillis(2500));
	}

	@Test
	void costCountsInEveryConstraintAndTooLargeACostIsAnError() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(10, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(5, Duration.ofHours(1)));
		assertThat(limiter.tryAcquire("k", 3).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 3).isPermitted()).isFalse();
		RateLimitDecision cheaper = limiter.tryAcquire("k", 2);
		assertThat(cheaper.isPermitted()).isTrue();
		assertThat(cheaper.getQuotas()).extracting(Quota::remaining).containsExactly(5L, 0L);
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("k", 6));
	}

	@Test
	void reservationWithinMaxWaitTellsTheDelayAndOneBeyondIsRejectedChangingNothing() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofSeconds(2), RefillStrategy.GREEDY));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		Reservation tooFar = limiter.reserve("k", 1, Duration.ofSeconds(1));
		assertThat(tooFar.getDecision().isPermitted()).isFalse();
		assertThat(tooFar.getDecision().getRetryAfter()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));
		Reservation reserved = limiter.reserve("k", 1, Duration.ofSeconds(3));
		assertThat(reserved.getDecision().isPermitted()).isTrue();
		assertThat(reserved.getDecision().getWait()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));
		// the reserved slot is taken: the next one lies a whole refill later
		Reservation next = limiter.reserve("k", 1, Duration.ofSeconds(5));
		assertThat(next.getDecision().getWait()).isBetween(Duration.ofSeconds(3), Duration.ofSeconds(4));
	}

	@Test
	void giveBackRestoresEveryConstraintWhateverOthersDidMeanwhile() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(5, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(3, Duration.ofHours(1))
			.window(4, Duration.ofHours(2)));
		Reservation first = limiter.reserve("k", 1, Duration.ZERO);
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		first.cancel();
		first.cancel();
		// The windows get their slot back exactly. The bucket gets its token back only when it could
		// not have refilled meanwhile: another call took from it, so it may stay one short.
		List<Quota> quotas = limiter.inspect("k").getQuotas();
		assertThat(quotas.get(0).remaining()).isBetween(3L, 4L);
		assertThat(quotas.subList(1, 3)).extracting(Quota::remaining).containsExactly(2L, 3L);
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
	}

	@Test
	void exactWindowReservesTheSlotWhenItsOldestEntryLeaves() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(2, Duration.ofSeconds(2)));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		sleep(500);
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		Reservation third = limiter.reserve("k", 1, Duration.ofSeconds(5));
		assertThat(third.getDecision().isPermitted()).isTrue();
		assertThat(third.getDecision().getWait()).isBetween(Duration.ofMillis(1), Duration.ofMillis(1500));
		// behind the third, in line: the fourth waits for the second call's entry to leave
		Reservation fourth = limiter.reserve("k", 1, Duration.ofSeconds(5));
		assertThat(fourth.getDecision().getWait()).isBetween(third.getDecision().getWait().plusMillis(400),
				Duration.ofSeconds(2));
		fourth.cancel();
		third.cancel();
		assertThat(limiter.inspect("k").getRemaining()).isZero();
		assertThat(limiter.reserve("k", 1, Duration.ofSeconds(5)).getDecision().getWait())
			.isBetween(Duration.ofMillis(1), Duration.ofMillis(1500));
	}

	@Test
	void counterWindowGivesBackExactly() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(3, Duration.ofHours(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER));
		Reservation first = limiter.reserve("k", 1, Duration.ZERO);
		Reservation second = limiter.reserve("k", 1, Duration.ZERO);
		first.cancel();
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(2);
		second.cancel();
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(3);
		for (int i = 0; i < 3; i++) {
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
	}

	/**
	 * Reservations ahead move a counter's fixed windows ahead; given back in either order, they
	 * leave it as if they had never been made: the call at 0 alone counts, and one more fits now.
	 */
	@Test
	void counterWindowGivenBackReservationsAheadInEitherOrderLeaveItAsBefore() {
		for (boolean latestFirst : new boolean[] { true, false }) {
			RateLimiter limiter = limiter(new ManualTicker(), counter(2));
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
			Reservation first = limiter.reserve("k", 2, Duration.ofHours(1));
			assertThat(first.getDecision().getWait()).isEqualTo(Duration.ofMinutes(2));
			Reservation second = limiter.reserve("k", 2, Duration.ofHours(1));
			assertThat(second.getDecision().getWait()).isEqualTo(Duration.ofMinutes(4));

			(latestFirst ? second : first).cancel();
			(latestFirst ? first : second).cancel();

			RateLimitDecision next = limiter.tryAcquire("k", 1);
			assertThat(next.isPermitted()).as("latest first: %s, %s", latestFirst, next).isTrue();
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
		}
	}

	/**
	 * A reservation ahead that is given back after the one before it proceeded: the call that
	 * proceeded still counts, in the fixed window of its time.
	 */
	@Test
	void counterWindowGivenBackReservationAfterAnEarlierOneProceededKeepsTheEarlierOne() {
		ManualTicker clock = new ManualTicker();
		RateLimiter limiter = limiter(clock, counter(2));
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isTrue();
		// the call of 2 at 0 weighs in [1 min, 2 min) too: a call of 1 fits from 90 s, one of 2 from 3 min
		Reservation first = limiter.reserve("k", 1, Duration.ofHours(1));
		assertThat(first.getDecision().getWait()).isEqualTo(Duration.ofSeconds(90));
		Reservation second = limiter.reserve("k", 2, Duration.ofHours(1));
		assertThat(second.getDecision().getWait()).isEqualTo(Duration.ofMinutes(3));
		clock.set(Duration.ofSeconds(96));
		assertThat(limiter.inspect("k").getRemaining()).isZero();

		second.cancel();

		// at 96 s: the call of 2 at 0 weighs 0.4 (0.8), and the first reservation's 1 counts
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
		clock.set(Duration.ofMillis(119_940));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
		// from 2 min the call at 90 s weighs in the previous window: 1 + 1 fits
		clock.set(Duration.ofMinutes(2));
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
	}

	/**
	 * A counter journals the latest reservations ahead, up to a constant: more of them, and the
	 * oldest leaves the journal; the ones it keeps are still given back exactly, as if never made.
	 * The one that left is given back by its counts alone, which leaves the windows where the
	 * later calls moved them: the price of a bounded memory per key.
	 */
	@Test
	void counterWindowGivesBackTheReservationsItJournalsExactlyBeyondTheJournalsSize() {
		ManualTicker clock = new ManualTicker();
		RateLimiter limiter = limiter(clock, counter(10));
		List<Reservation> reservations = reserveBeyondTheJournal(limiter);
		RateLimiter oldestFirst = limiter(clock, counter(10));
		List<Reservation> others = reserveBeyondTheJournal(oldestFirst);

		for (int i = reservations.size() - 1; i >= 1; i--) {
			reservations.get(i).cancel();
		}
		for (Reservation reservation : others) {
			reservation.cancel();
		}

		// without the oldest, the windows stay at its time: a call waits for it, not only until the
		// call at 0 weighs little enough (66 s)
		assertThat(oldestFirst.reserve("k", 1, Duration.ofDays(1)).getDecision().getWait())
			.isEqualTo(Duration.ofSeconds(90));
		// as if only the call at 0 and the first reservation had been made
		RateLimiter expected = limiter(clock, counter(10));
		expected.tryAcquire("k", 10);
		expected.reserve("k", 5, Duration.ofDays(1));
		for (int cost = 1; cost <= 10; cost++) {
			assertThat(limiter.tryAcquire("k", cost).getRetryAfter()).as("cost %d", cost)
				.isEqualTo(expected.tryAcquire("k", cost).getRetryAfter());
		}
		for (Duration at : List.of(Duration.ofMinutes(2), Duration.ofSeconds(150), Duration.ofSeconds(210))) {
			clock.set(at);
			assertThat(limiter.inspect("k").getQuotas()).as("at %s", at).isEqualTo(expected.inspect("k").getQuotas());
		}
	}

	/**
	 * A call that fills a counter window of 10 at 0, then one more reservation of 5 than the
	 * journal holds: at 90 s, when the call at 0 weighs 5, then one a minute from 2 min on.
	 */
	private static List<Reservation> reserveBeyondTheJournal(RateLimiter limiter) {
		assertThat(limiter.tryAcquire("k", 10).isPermitted()).isTrue();
		List<Reservation> reservations = new ArrayList<>();
		for (int i = 1; i <= WindowCounter.JOURNAL_CALLS + 1; i++) {
			Reservation reservation = limiter.reserve("k", 5, Duration.ofDays(1));
			assertThat(reservation.getDecision().getWait())
				.isEqualTo((i == 1) ? Duration.ofSeconds(90) : Duration.ofMinutes(i));
			reservations.add(reservation);
		}
		return reservations;
	}

	/**
	 * Reservations ahead beyond the journal, all given back: the oldest left the journal, so it is
	 * given back by its counts alone, and the windows stay where it moved them (2 min). Every count
	 * is 0 then, but a store that forgot the key would admit at once on the window the call at 0
	 * filled.
	 */
	@Test
	void counterWindowGivenBackReservationsBeyondTheJournalAdmitNothingMoreAtOnce() {
		for (boolean oldestFirst : new boolean[] { false, true }) {
			RateLimiter limiter = limiter(new ManualTicker(), counter(10));
			assertThat(limiter.tryAcquire("k", 10).isPermitted()).isTrue();
			List<Reservation> reservations = new ArrayList<>();
			for (int i = 1; i <= WindowCounter.JOURNAL_CALLS + 1; i++) {
				Reservation reservation = limiter.reserve("k", 10, Duration.ofDays(1));
				// each fills a window: the next one fits two windows later
				assertThat(reservation.getDecision().getWait()).isEqualTo(Duration.ofMinutes(2L * i));
				reservations.add(reservation);
			}
			for (int i = 0; i < reservations.size(); i++) {
				reservations.get(oldestFirst ? i : reservations.size() - 1 - i).cancel();
			}

			RateLimitDecision next = limiter.tryAcquire("k", 10);
			assertThat(next.isPermitted())
				.as("oldest first: %s; a second call of 10 at 0 in a window of 10: %s", oldestFirst, next)
				.isFalse();
		}
	}

	private static RateLimiterSettings.Builder counter(int limit) {
		return RateLimiterSettings.builder().window(limit, Duration.ofMinutes(1)).windowAlgorithm(WindowAlgorithm.COUNTER);
	}

	/** Pausing on throttle, resumptions spread over a tenth of the pause, at most two hours. */
	private static final PauseOnThrottleSettings PAUSING = new PauseOnThrottleSettings(true, Set.of(429),
			Duration.ofSeconds(1), Duration.ofHours(2), 0.1);

	/**
	 * Limiters of every shape a store may decide differently (the Redis store has a script for a
	 * token bucket alone, one for exact windows, and one for the rest), each admitting three calls
	 * in an hour, pausing on throttle.
	 * @return the limiters' settings
	 */
	static Stream<Named<RateLimiterSettings.Builder>> pausingShapes() {
		return Stream.of(Named.of("token bucket", RateLimiterSettings.builder()
			.tokenBucket(3, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.pauseOnThrottle(PAUSING)),
				Named.of("exact windows", RateLimiterSettings.builder()
					.window(3, Duration.ofHours(1))
					.window(4, Duration.ofHours(2))
					.pauseOnThrottle(PAUSING)),
				Named.of("everything", RateLimiterSettings.builder()
					.tokenBucket(5, 1, Duration.ofHours(1), RefillStrategy.INTERVAL)
					.window(3, Duration.ofHours(1))
					.maxConcurrent(2, Duration.ofHours(1))
					.pauseOnThrottle(PAUSING)),
				Named.of("counter windows and permits", RateLimiterSettings.builder()
					.window(3, Duration.ofHours(1))
					.windowAlgorithm(WindowAlgorithm.COUNTER)
					.maxConcurrent(2, Duration.ofHours(1))
					.pauseOnThrottle(PAUSING)));
	}

	/**
	 * While paused, every way of deciding rejects with the rest of the pause, and up to a tenth of
	 * the pause more (the spread of resumptions), taking nothing; inspecting shows the pause and its
	 * end; once it ends, the quota left before it is all there.
	 */
	@ParameterizedTest
	@MethodSource("pausingShapes")
	void pausedKeyIsRejectedWithTheRestOfThePauseAndConsumesNothing(RateLimiterSettings.Builder shape) {
		ManualTicker clock = new ManualTicker();
		RateLimiter limiter = limiter(clock, shape);
		try (Permit first = limiter.acquire("k", 1, Duration.ZERO)) {
			assertThat(first.getDecisions().get(0).isPaused()).isFalse();
		}
		limiter.pause("k", Duration.ofSeconds(10));
		clock.advance(Duration.ofSeconds(4));

		List<RateLimitDecision> rejected = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			if (limiter.getSettings().maxConcurrent() == 0) {
				// a limiter with permits refuses tryAcquire, whose permit nobody would return
				rejected.add(limiter.tryAcquire("k", 1));
			}
			rejected.add(limiter.reserve("k", 1, Duration.ofSeconds(1)).getDecision());
			rejected.add(limiter.reserveAsync("k", 1, Duration.ZERO).join().getDecision());
		}
		rejected.add(assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> limiter.acquire("k", 1, Duration.ZERO))
			.actual()
			.getDecision());
		assertThat(rejected).allSatisfy((decision) -> {
			assertThat(decision.isPermitted()).isFalse();
			assertThat(decision.isPaused()).isTrue();
			assertThat(decision.getPause()).isEqualTo(Duration.ofSeconds(6));
			assertThat(decision.getRetryAfter()).isBetween(Duration.ofSeconds(6), Duration.ofSeconds(7));
			assertThat(decision.getRemaining()).isZero();
		});
		// each caller's share of the spread of resumptions is its own: not all of them come back at its end
		assertThat(rejected).anySatisfy(
				(decision) -> assertThat(decision.getRetryAfter()).isGreaterThan(Duration.ofSeconds(6)));
		RateLimitDecision state = limiter.inspect("k");
		assertThat(state.isPaused()).isTrue();
		assertThat(state.getPause()).isEqualTo(Duration.ofSeconds(6));
		assertThat(state.getRetryAfter()).isEqualTo(Duration.ofSeconds(6));
		assertThat(state.getInFlight()).isZero();

		clock.advance(Duration.ofSeconds(6));
		RateLimitDecision after = limiter.inspect("k");
		assertThat(after.isPaused()).isFalse();
		assertThat(after.getPause()).isZero();
		assertThat(after.getRemaining()).isEqualTo(2);
		try (Permit second = limiter.acquire("k", 1, Duration.ZERO); Permit third = limiter.acquire("k", 1, Duration.ZERO)) {
			assertThat(third.getDecisions().get(0).getRemaining()).isZero();
			RateLimitDecision fourth = limiter.reserve("k", 1, Duration.ZERO).getDecision();
			assertThat(fourth.isPermitted()).isFalse();
			assertThat(fourth.isPaused()).isFalse();
		}
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	/** A call that may wait out the pause does, and is then decided as usual. */
	@Test
	void callWhoseMaxWaitCoversThePauseWaitsForItAndIsAdmitted() {
		ManualTicker clock = new ManualTicker();
		RateLimiter limiter = limiter(clock, RateLimiterSettings.builder()
			.window(3, Duration.ofHours(1))
			.pauseOnThrottle(PAUSING));
		limiter.pause("k", Duration.ofSeconds(10));
		try (Permit permit = limiter.acquire("k", 1, Duration.ofSeconds(11))) {
			assertThat(permit.getWaited()).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(11));
		}
		assertThat(clock.read()).isBetween(Duration.ofSeconds(10).toNanos(), Duration.ofSeconds(11).toNanos());
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(2);
	}

	@Test
	void longerPauseExtendsThePauseAndAShorterOneNeverShortensIt() {
		ManualTicker clock = new ManualTicker();
		RateLimiter limiter = limiter(clock, RateLimiterSettings.builder()
			.tokenBucket(3, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.pauseOnThrottle(PAUSING));
		limiter.pause("k", Duration.ofSeconds(10));
		clock.advance(Duration.ofSeconds(2));
		limiter.pause("k", Duration.ofSeconds(3));
		assertThat(limiter.inspect("k").getPause()).isEqualTo(Duration.ofSeconds(8));
		limiter.pauseAsync("k", Throttle.retryAfter(Duration.ofSeconds(8))).join();
		assertThat(limiter.inspect("k").getPause()).isEqualTo(Duration.ofSeconds(8));
		limiter.pause("k", Duration.ofSeconds(20));
		assertThat(limiter.inspect("k").getPause()).isEqualTo(Duration.ofSeconds(20));
		// spread over a tenth of the longer pause
		assertThat(limiter.tryAcquire("k", 1).getRetryAfter()).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(22));
		clock.set(Duration.ofMillis(21_999));
		assertThat(limiter.inspect("k").getPause()).isEqualTo(Duration.ofMillis(1));
		clock.set(Duration.ofSeconds(22));
		assertThat(limiter.inspect("k").isPaused()).isFalse();
		assertThat(limiter.tryAcquire("k", 3).isPermitted()).isTrue();
	}

	@Test
	void pauseHoldsForItsKeyAloneAndResetClearsIt() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(2, Duration.ofHours(1))
			.pauseOnThrottle(PAUSING));
		assertThat(limiter.pauseAsync("k", Throttle.retryAfter(Duration.ofHours(1))).join()).isEqualTo(Duration.ofHours(1));
		RateLimitDecision paused = limiter.tryAcquire("k", 1);
		assertThat(paused.isPaused()).isTrue();
		assertThat(paused.getPause()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
		assertThat(paused.getRetryAfter()).isBetween(Duration.ofMinutes(59), Duration.ofMinutes(66));
		for (String other : List.of("", "k2", "{k}")) {
			assertThat(limiter.inspect(other).isPaused()).as(other).isFalse();
			assertThat(limiter.tryAcquire(other, 1).isPermitted()).as(other).isTrue();
		}
		limiter.reset("k");
		assertThat(limiter.inspect("k").isPaused()).isFalse();
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isTrue();
	}

	@Test
	void pauseLongerThanMaxPauseIsCutToIt() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(2, Duration.ofHours(1))
			.pauseOnThrottle(PAUSING));
		assertThat(limiter.pauseAsync("k", Throttle.retryAfter(Duration.ofDays(1))).join()).isEqualTo(Duration.ofHours(2));
		assertThat(limiter.inspect("k").getPause()).isBetween(Duration.ofMinutes(119), Duration.ofHours(2));
	}

	/**
	 * Pausing follows the limiter's settings from its next decision: turned off, a pause still
	 * stored is ignored (and, for a shared store, so is one another instance sets); turned on
	 * again, it holds as before.
	 */
	@Test
	void limiterThatNoLongerPausesIgnoresAStoredPauseFromItsNextDecision() {
		String name = "contract-" + names.incrementAndGet() + "-" + System.nanoTime();
		RateLimiterSettings.Builder settings = RateLimiterSettings.builder()
			.store(storeType())
			.window(3, Duration.ofHours(1))
			.maxConcurrent(2, Duration.ofHours(1));
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.store(storeType(), storeFactory())
			.limiter(name, settings.pauseOnThrottle(PAUSING).build())
			.build();
		RateLimiter limiter = registry.get(name);
		limiter.pause("k", Duration.ofHours(1));
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPaused()).isTrue();

		registry.updateSettings(name, settings.pauseOnThrottle(PauseOnThrottleSettings.DISABLED).build());
		assertThat(limiter.inspect("k").isPaused()).isFalse();
		try (Permit permit = limiter.acquire("k", 1, Duration.ZERO)) {
			assertThat(permit.getDecisions().get(0).isPaused()).isFalse();
		}

		registry.updateSettings(name, settings.pauseOnThrottle(PAUSING).build());
		RateLimitDecision pausedAgain = limiter.reserve("k", 1, Duration.ZERO).getDecision();
		assertThat(pausedAgain.isPaused()).isTrue();
		assertThat(pausedAgain.getPause()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
		assertThat(limiter.inspect("k").getRemaining()).isZero();
		registry.updateSettings(name, settings.pauseOnThrottle(PauseOnThrottleSettings.DISABLED).build());
		// the call admitted while pausing was off, and its permit returned
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(2);
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	@Test
	void permitOfACallRejectedByAStackedLimiterIsGivenBack() {
		String perUser = "user-" + names.incrementAndGet();
		String global = "global-" + names.incrementAndGet();
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.store(storeType(), storeFactory())
			.limiter(perUser, RateLimiterSettings.builder().store(storeType()).maxConcurrent(1, Duration.ofHours(1)).build())
			.limiter(global, RateLimiterSettings.builder().store(storeType()).window(1, Duration.ofHours(1)).build())
			.build();
		List<RateLimitRequest> requests = List.of(new RateLimitRequest(registry.get(perUser), "u", 1, Duration.ZERO),
				new RateLimitRequest(registry.get(global), "", 1, Duration.ZERO));
		registry.acquireAll(requests).close();
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> registry.acquireAll(requests));
		assertThat(registry.get(perUser).inspect("u").getInFlight()).isZero();
		registry.get(perUser).acquire("u", 1, Duration.ZERO).close();
	}

	@Test
	void giveBackOfTheLatestCallRestoresTheBucketExactly() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(3, 3, Duration.ofMillis(300), RefillStrategy.INTERVAL));
		limiter.tryAcquire("k", 1);
		Reservation second = limiter.reserve("k", 2, Duration.ZERO);
		assertThat(second.getDecision().isPermitted()).isTrue();
		second.cancel();
		assertThat(limiter.inspect("k").getRemaining()).isGreaterThanOrEqualTo(2);
		assertThat(limiter.tryAcquire("k", 2).isPermitted()).isTrue();
	}

	@Test
	void concurrencyPermitsAreCountedAndReturned() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().maxConcurrent(2, Duration.ofHours(1)));
		Permit one = limiter.acquire("k", 1, Duration.ZERO);
		Permit two = limiter.acquire("k", 1, Duration.ZERO);
		Reservation third = limiter.reserve("k", 1, Duration.ZERO);
		assertThat(third.getDecision().isPermitted()).isFalse();
		assertThat(third.getDecision().isConcurrencyLimited()).isTrue();
		assertThat(third.getDecision().getInFlight()).isEqualTo(2);
		assertThat(third.getDecision().getRetryAfter()).isPositive().isLessThan(Duration.ofMinutes(1));
		one.close();
		one.close();
		Permit again = limiter.acquire("k", 1, Duration.ZERO);
		assertThat(again.getDecisions().get(0).getInFlight()).isEqualTo(2);
		two.close();
		again.close();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	@Test
	void callerWaitsForAReturnedPermitWithinItsMaxWait() throws InterruptedException {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofHours(1)));
		Permit held = limiter.acquire("k", 1, Duration.ZERO);
		Thread returner = new Thread(() -> {
			sleep(100);
			held.close();
		});
		returner.start();
		try (Permit waited = limiter.acquire("k", 1, Duration.ofSeconds(10))) {
			assertThat(waited.getWaited()).isPositive();
		}
		returner.join();
	}

	@Test
	void leaseOfAHolderThatNeverReturnsItExpires() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMillis(300)));
		limiter.acquire("k", 1, Duration.ZERO);
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isFalse();
		sleep(400);
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
	}

	@Test
	void permitReturnedAfterItsLeaseExpiredLeavesALaterCallsPermit() {
		// The holder outlived its lease: the key may be forgotten meanwhile, and its next call takes
		// the only permit. The late return frees nothing of that call's.
		RateLimiter limiter = limiter(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMillis(300)));
		Permit late = limiter.acquire("k", 1, Duration.ZERO);
		sleep(400);
		try (Permit next = limiter.acquire("k", 1, Duration.ZERO)) {
			late.close();
			RateLimitDecision third = limiter.reserve("k", 1, Duration.ZERO).getDecision();
			assertThat(third.isPermitted()).isFalse();
			assertThat(third.isConcurrencyLimited()).isTrue();
		}
	}

	@Test
	void inspectConsumesNothingAndResetStartsAfresh() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofHours(1), RefillStrategy.GREEDY));
		for (int i = 0; i < 5; i++) {
			assertThat(limiter.inspect("k").getRemaining()).isEqualTo(2);
		}
		limiter.tryAcquire("k", 2);
		assertThat(limiter.inspect("k").isPermitted()).isFalse();
		limiter.reset("k");
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(2);
	}

	@Test
	void everyKeyHasItsOwnStateWhateverItHolds() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(1, Duration.ofHours(1)));
		List<String> keys = List.of("", "{", "}", "{a}", "}{", "a b", "a\u0000b", "\uD800", "\uDC00", "\u00e9",
				"{user}:1", "x".repeat(10_240));
		for (String key : keys) {
			assertThat(limiter.tryAcquire(key, 1).isPermitted()).as(key).isTrue();
		}
		for (String key : keys) {
			assertThat(limiter.tryAcquire(key, 1).isPermitted()).as(key).isFalse();
		}
	}

	@Test
	void stackedLimitersAdmitAllOrNothing() {
		String perUser = "user-" + names.incrementAndGet();
		String global = "global-" + names.incrementAndGet();
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.store(storeType(), storeFactory())
			.limiter(perUser, RateLimiterSettings.builder().store(storeType()).window(5, Duration.ofHours(1)).build())
			.limiter(global, RateLimiterSettings.builder().store(storeType()).window(2, Duration.ofHours(1)).build())
			.build();
		List<RateLimitRequest> requests = List.of(new RateLimitRequest(registry.get(perUser), "u", 1, Duration.ZERO),
				new RateLimitRequest(registry.get(global), "", 1, Duration.ZERO));
		List<Boolean> outcomes = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			try {
				registry.acquireAll(requests).close();
				outcomes.add(true);
			}
			catch (RateLimitExceededException ex) {
				outcomes.add(false);
			}
		}
		assertThat(outcomes).containsExactly(true, true, false, false);
		assertThat(registry.get(perUser).inspect("u").getRemaining()).isEqualTo(3);
	}

	static void runConcurrently(int threads, int callsEach, Runnable call) throws InterruptedException {
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					return;
				}
				for (int i = 0; i < callsEach; i++) {
					call.run();
				}
			});
			worker.start();
			workers.add(worker);
		}
		start.countDown();
		for (Thread worker : workers) {
			worker.join();
		}
	}

	/**
	 * Sleeps in real time.
	 * @param millis how long
	 */
	public static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
