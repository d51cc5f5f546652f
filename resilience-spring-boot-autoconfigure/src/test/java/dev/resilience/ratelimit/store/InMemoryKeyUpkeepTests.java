package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How the in-memory store keeps its keys: the count of keys held, which keys an eviction or a
 * sweep forgets, the timer that sweeps while nobody calls, when a use is recorded, and the waits
 * for a returned permit that leave nothing behind.
 */
class InMemoryKeyUpkeepTests {

	private static final RateLimiterSettings HOURLY_BUCKET = RateLimiterSettings.builder()
		.tokenBucket(10, 10, Duration.ofHours(1), RefillStrategy.GREEDY)
		.build();

	private ManualTicker ticker = new ManualTicker();

	@Test
	void resetCountsOffTheKeyItForgetsAndNothingForAKeyNotHeld() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		take(store, "a");
		take(store, "b");
		assertThat(store.heldKeys()).isEqualTo(2);

		store.reset("a");
		assertThat(store.heldKeys()).isOne();
		store.reset("a");
		store.reset("never-seen");

		assertThat(store.heldKeys()).isOne();
		assertThat(store.keyCount()).hasValue(1);
	}

	@Test
	void sweepCountsOffTheKeysItForgets() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		take(store, "a");
		take(store, "b");
		this.ticker.set(Duration.ofMillis(1500));
		take(store, "b");
		// a: idle for its horizon (1 s + 1 ns) plus the second a use may go unrecorded
		this.ticker.set(Duration.ofSeconds(2).plusNanos(1));

		store.sweep();

		assertThat(store.heldKeys()).isOne();
		assertThat(store.inspect("b").getRemaining()).isZero();
	}

	@Test
	void sweepRemovesAStateRetiredBeforeItHoweverRecentlyUsed() {
		InMemoryRateLimitStore store = store(HOURLY_BUCKET);
		KeyState held = store.state("a");
		take(store, "a");
		// retired by an eviction that has not removed it yet
		assertThat(held.replaceBucket(held.bucket(), KeyState.RETIRED)).isTrue();

		store.sweep();

		assertThat(store.heldKeys()).isZero();
		assertThat(store.state("a")).isNotSameAs(held);
		assertThat(take(store, "a")).isEqualTo(9);
	}

	/**
	 * Sweeps and evictions retire only the states of keys, so a decision on the shared key never
	 * finds its state retired and never looks it up again.
	 */
	@Test
	void theSharedStateIsNeitherSweptNorEvicted() {
		InMemoryRateLimitStore bucket = store(RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofHours(1), RefillStrategy.GREEDY)
			.maxKeys(1)
			.build());
		InMemoryRateLimitStore window = store(RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.maxKeys(1)
			.build());
		KeyState sharedBucket = bucket.state("");
		KeyState sharedWindow = window.state("");
		take(bucket, "");
		take(window, "");
		this.ticker.advance(Duration.ofDays(1));
		bucket.sweep();
		window.sweep();
		take(bucket, "a");
		take(bucket, "b");
		take(window, "a");
		take(window, "b");

		assertThat(bucket.state("")).isSameAs(sharedBucket);
		assertThat(sharedBucket.bucket()).isNotSameAs(KeyState.RETIRED);
		assertThat(window.state("")).isSameAs(sharedWindow);
		assertThat(sharedWindow.retired).isFalse();
	}

	@Test
	void evictionRetiresTheBucketOfTheKeyItForgets() {
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api", RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofHours(1), RefillStrategy.GREEDY)
			.maxKeys(1)
			.build(), this.ticker);
		KeyState held = store.state("a");
		take(store, "a");

		take(store, "b");

		// a decision still holding the old state fails its compare-and-set and finds the key again
		assertThat(held.bucket()).isSameAs(KeyState.RETIRED);
		assertThat(store.heldKeys()).isOne();
	}

	@Test
	void evictionForgetsTheLeastRecentlyUsedOfEightKeysSampledInTheMapsOrder() {
		// Single letters fall into the bins of a new ConcurrentHashMap in alphabetical order, which is
		// the order the store's hand walks them in: checked here, so that the test fails loudly if not.
		List<String> first = List.of("a", "b", "c", "d", "e", "f", "g", "h", "i");
		List<String> all = new ArrayList<>(first);
		all.addAll(List.of("n", "o"));
		ConcurrentHashMap<String, Boolean> mirror = new ConcurrentHashMap<>();
		all.forEach((key) -> mirror.put(key, true));
		assertThat(mirror.keySet()).containsExactlyElementsOf(all);
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api", RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofHours(1), RefillStrategy.GREEDY)
			.maxKeys(9)
			.build(), this.ticker);
		first.forEach((key) -> take(store, key));
		this.ticker.set(Duration.ofSeconds(2));
		first.stream().filter((key) -> !key.equals("i")).forEach((key) -> take(store, key));

		// samples a to h, all last used at 2 s: the first of them goes, not i (idle since 0), the ninth
		take(store, "n");

		assertThat(remaining(store, first)).containsExactly(10L, 8L, 8L, 8L, 8L, 8L, 8L, 8L, 9L);

		// the hand goes on from i, and past the map's end from its start again, for eight keys in all
		this.ticker.set(Duration.ofSeconds(4));
		take(store, "i");
		take(store, "n");
		take(store, "o");

		assertThat(remaining(store, List.of("b", "c", "i", "n"))).containsExactly(10L, 8L, 8L, 8L);
		assertThat(store.heldKeys()).isEqualTo(9);
	}

	@Test
	void everyUseIsRecordedAndAKeyIsKeptASecondPastItsHorizonFromItsLastUse() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(5, Duration.ofSeconds(2)).build());
		this.ticker.set(Duration.ofSeconds(5));
		take(store, "a");
		this.ticker.set(Duration.ofMillis(5500));
		take(store, "a");
		this.ticker.set(Duration.ofMillis(5500).plusNanos(1));
		take(store, "a");

		// idle from its last use, for the horizon (2 s + 1 ns) plus 1 s
		this.ticker.set(Duration.ofMillis(8500).plusNanos(1));
		assertThat(store.keyCount()).hasValue(1);
		this.ticker.set(Duration.ofMillis(8500).plusNanos(2));
		assertThat(store.keyCount()).hasValue(0);
	}

	/**
	 * A reserved slot is a use: a key whose calls wait beyond the limiter's max-wait (the call's
	 * own is longer, or max-wait was lowered at run time) is kept until its slots are past, so
	 * that no interval of the window holds more than its limit.
	 */
	@Test
	void aKeyIsKeptPastItsLastReservedSlotHoweverLongTheWait() {
		RateLimiterSettings oneASecond = RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build();
		// the calls wait longer than the limiter's max-wait (none)
		assertKeptPastItsLastSlot(store(oneASecond));
		// the limiter's max-wait is lowered at run time after the calls reserved their slots
		this.ticker.set(Duration.ZERO);
		InMemoryRateLimitStore lowered = store(RateLimiterSettings.builder()
			.window(1, Duration.ofSeconds(1))
			.maxWait(Duration.ofSeconds(10))
			.build());
		assertKeptPastItsLastSlot(lowered, () -> assertThat(lowered.updateSettings(oneASecond)).isTrue());
	}

	private void assertKeptPastItsLastSlot(InMemoryRateLimitStore store) {
		assertKeptPastItsLastSlot(store, () -> {
		});
	}

	private void assertKeptPastItsLastSlot(InMemoryRateLimitStore store, Runnable afterReserving) {
		for (int i = 0; i < 10; i++) {
			RateLimitDecision decision = store.reserve("k", 1, Duration.ofSeconds(10).toNanos()).getDecision();
			assertThat(decision.getWait()).isEqualTo(Duration.ofSeconds(i));
		}
		afterReserving.run();
		this.ticker.set(Duration.ofSeconds(3));
		assertThat(store.keyCount()).hasValue(1);
		assertThat(store.tryAcquire("k", 1).isPermitted()).as("a second call in [3 s, 4 s)").isFalse();
		// the slot at 9 s is the last use: the key is idle for its horizon (1 s + 1 ns) plus 1 s
		this.ticker.set(Duration.ofSeconds(11));
		assertThat(store.keyCount()).hasValue(1);
		this.ticker.set(Duration.ofSeconds(11).plusNanos(1));
		assertThat(store.keyCount()).hasValue(0);
	}

	@Test
	void aStoreDecidesAlikeWhateverItsTickerReadsWhenItIsMade() {
		List<String> expected = decisionsFrom(0);
		assertThat(expected).containsExactly("true 0 PT0S", "false 0 PT1S", "true 0 PT1S", "false 0 PT2S",
				"true 0 PT0S");
		for (long origin : new long[] { (Long.MAX_VALUE - Duration.ofMillis(100).toNanos()) / 2, Long.MAX_VALUE / 2 + 1,
				-Long.MAX_VALUE / 2, Long.MAX_VALUE - 5, Long.MIN_VALUE + 5 }) {
			assertThat(decisionsFrom(origin)).as("from %d", origin).isEqualTo(expected);
		}
	}

	private List<String> decisionsFrom(long origin) {
		this.ticker = new ManualTicker(origin);
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofSeconds(1), RefillStrategy.INTERVAL)
			.window(2, Duration.ofSeconds(3))
			.build());
		List<String> decisions = new ArrayList<>();
		decisions.add(describe(store.reserve("a", 1, 0).getDecision()));
		decisions.add(describe(store.reserve("a", 1, 0).getDecision()));
		decisions.add(describe(store.reserve("a", 1, Duration.ofSeconds(5).toNanos()).getDecision()));
		this.ticker.advance(Duration.ofSeconds(1));
		decisions.add(describe(store.reserve("a", 1, 0).getDecision()));
		this.ticker.advance(Duration.ofSeconds(2));
		decisions.add(describe(store.reserve("a", 1, 0).getDecision()));
		return decisions;
	}

	@Test
	void aBucketReservationThatWaitsDescribesTheBucketWhenTheCallProceeds() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.INTERVAL)
			.build());
		store.reserve("a", 2, 0);

		RateLimitDecision waiting = store.reserve("a", 1, Duration.ofSeconds(5).toNanos()).getDecision();

		assertThat(waiting.getWait()).isEqualTo(Duration.ofSeconds(1));
		// at 1 s, when the call proceeds, the bucket is empty and its next token comes 1 s later (not 2 s
		// from now)
		assertThat(waiting.getQuotas()).singleElement().satisfies((quota) -> {
			assertThat(quota.remaining()).isZero();
			assertThat(quota.reset()).isEqualTo(Duration.ofSeconds(1));
		});
	}

	@Test
	void aThreadThatStopsWaitingForAPermitIsNoLongerCountedAsAWaiter() throws InterruptedException {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build());
		Reservation held = store.reserve("k", 1, 0);

		store.awaitPermit("k", Duration.ofMillis(1).toNanos());

		KeyState state = store.state("k");
		synchronized (state) {
			assertThat(state.slots.permitWaiters).isZero();
		}
		held.release();
	}

	@Test
	void anExpiredLeaseMeansAPermitIsFreeWithoutWaiting() {
		ManualScheduler scheduler = new ManualScheduler(this.ticker);
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofSeconds(5)).build());
		store.reserve("k", 1, 0);
		this.ticker.set(Duration.ofSeconds(5));

		CompletableFuture<Void> ready = store.awaitPermitAsync("k", Duration.ofSeconds(10).toNanos(), scheduler);

		assertThat(ready).isCompleted();
		assertThat(scheduler.delays()).isEmpty();
		assertThat(InMemoryPermitWaiterTests.waiters(store, "k")).isZero();
	}

	@Test
	void aWaiterWhoseTimerIsRefusedLeavesNothingBehind() {
		ManualScheduler scheduler = new ManualScheduler(this.ticker);
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build());
		Reservation held = store.reserve("k", 1, 0);
		scheduler.shutdown();

		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> store.awaitPermitAsync("k", Duration.ofSeconds(10).toNanos(), scheduler));

		assertThat(InMemoryPermitWaiterTests.waiters(store, "k")).isZero();
		held.release();
	}

	@Test
	void idleKeysAreSweptOnATimerWhileTheStoreHoldsAnyAndNotOnceItHoldsNone() throws InterruptedException {
		// the smallest horizon: the timer fires about a second (the recording tolerance) after a key comes
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(1, Duration.ofMillis(1)).build());
		take(store, "a");
		this.ticker.set(Duration.ofSeconds(10));
		take(store, "b");

		// nobody asks the store: its own timer forgets a, keeps b, and comes back for it
		awaitHeldKeys(store, 1);
		this.ticker.set(Duration.ofSeconds(20));
		awaitHeldKeys(store, 0);

		// a new key after the store held none starts the timer again
		take(store, "c");
		this.ticker.set(Duration.ofSeconds(30));
		awaitHeldKeys(store, 0);
	}

	private static void awaitHeldKeys(InMemoryRateLimitStore store, int expected) throws InterruptedException {
		// real time: the sweep runs on the JDK's delayed executor, about a second after it was scheduled
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		BooleanSupplier reached = () -> store.heldKeys() == expected;
		while (!reached.getAsBoolean() && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
		assertThat(store.heldKeys()).as("keys held after waiting for the sweep").isEqualTo(expected);
	}

	@Test
	void storeAndReservationSayWhatTheyAre() {
		InMemoryRateLimitStore store = store(HOURLY_BUCKET);
		take(store, "a");
		take(store, "b");

		assertThat(store).hasToString("InMemoryRateLimitStore[api, keys=2]");
		Reservation reservation = store.reserve("a", 1, 0);
		assertThat(reservation).hasToString("Reservation[" + reservation.getDecision() + "]");
		// the key stays out of a description that may reach a log
		assertThat(reservation.toString()).contains("permitted=true").doesNotContain("key");
	}

	private static List<Long> remaining(InMemoryRateLimitStore store, List<String> keys) {
		return keys.stream().map((key) -> store.inspect(key).getRemaining()).toList();
	}

	private static String describe(RateLimitDecision decision) {
		return decision.isPermitted() + " " + decision.getRemaining() + " "
				+ (decision.isPermitted() ? decision.getWait() : decision.getRetryAfter());
	}

	private static long take(InMemoryRateLimitStore store, String key) {
		RateLimitDecision decision = store.reserve(key, 1, 0).getDecision();
		assertThat(decision.isPermitted()).as("%s admitted", key).isTrue();
		return decision.getRemaining();
	}

	private InMemoryRateLimitStore store(RateLimiterSettings settings) {
		return new InMemoryRateLimitStore("api", settings, this.ticker);
	}

}
