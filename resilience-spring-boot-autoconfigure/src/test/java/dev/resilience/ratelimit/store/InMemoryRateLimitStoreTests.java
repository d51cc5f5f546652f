package dev.resilience.ratelimit.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.WindowAlgorithm;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-memory store: one state per key, and keys forgotten once their state is back to full. */
class InMemoryRateLimitStoreTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void storeKeepsOneBucketPerKeyAsInExWaitersGenServerExample() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 2, Duration.ofMillis(100), RefillStrategy.INTERVAL)
			.build());
		assertThat(take(store, "jane")).isEqualTo("ok 1");
		assertThat(take(store, "jane")).isEqualTo("ok 0");
		assertThat(take(store, "bill")).isEqualTo("ok 1");
		assertThat(take(store, "jane")).isEqualTo("error 0");
		assertThat(take(store, "bill")).isEqualTo("ok 0");
		assertThat(take(store, "bill")).isEqualTo("error 0");
		this.ticker.advance(Duration.ofMillis(100));
		assertThat(take(store, "bill")).isEqualTo("ok 1");
		assertThat(take(store, "pam")).isEqualTo("ok 1");
		assertThat(take(store, "jane")).isEqualTo("ok 1");
		assertThat(take(store, "bill")).isEqualTo("ok 0");
		assertThat(take(store, "bill")).isEqualTo("error 0");
	}

	@Test
	void idleHorizonCoversRefillWindowsAndLeasesButNoWait() {
		assertThat(InMemoryRateLimitStore.idleHorizonNanos(RateLimiterSettings.builder()
			.tokenBucket(10, 3, Duration.ofSeconds(1), RefillStrategy.INTERVAL)
			.build())).isEqualTo(Duration.ofSeconds(4).toNanos() + 1);
		assertThat(InMemoryRateLimitStore.idleHorizonNanos(RateLimiterSettings.builder()
			.tokenBucket(10, 4, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(5, Duration.ofSeconds(2))
			.maxWait(Duration.ofMillis(300))
			.build())).isEqualTo(Duration.ofSeconds(3).toNanos() + 1);
		assertThat(InMemoryRateLimitStore.idleHorizonNanos(RateLimiterSettings.builder()
			.window(5, Duration.ofSeconds(7))
			.maxConcurrent(1, Duration.ofSeconds(9))
			.build())).isEqualTo(Duration.ofSeconds(9).toNanos() + 1);
		assertThat(InMemoryRateLimitStore.idleHorizonNanos(RateLimiterSettings.builder()
			.window(5, Duration.ofSeconds(7))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build())).isEqualTo(Duration.ofSeconds(14).toNanos() + 1);
	}

	@Test
	void storeForgetsBucketKeyOnceIdleForItsHorizonAndNotBefore() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		take(store, "a");
		this.ticker.set(Duration.ofSeconds(1));
		take(store, "a");
		assertThat(size(store)).isEqualTo(1);
		// full again 2s after the last use; Caffeine records accesses to within a second
		this.ticker.set(Duration.ofSeconds(3));
		assertThat(size(store)).isEqualTo(1);
		this.ticker.set(Duration.ofSeconds(4).plusNanos(1));
		assertThat(size(store)).isZero();
		assertThat(store.inspect("a").getRemaining()).isEqualTo(2);
	}

	@Test
	void storeForgetsTenThousandIdleKeys() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(5, 5, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(5, Duration.ofMillis(500))
			.build());
		for (int i = 0; i < 10_000; i++) {
			assertThat(take(store, "key-" + i)).isEqualTo("ok 4");
		}
		assertThat(size(store)).isEqualTo(10_000);
		this.ticker.set(Duration.ofSeconds(2));
		assertThat(size(store)).isEqualTo(10_000);
		this.ticker.set(Duration.ofSeconds(2).plusNanos(1));
		assertThat(size(store)).isZero();
	}

	@Test
	void storeKeepsKeyHoldingAPermitUntilItsLeaseExpires() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(5, 5, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.maxConcurrent(1, Duration.ofSeconds(5))
			.build());
		store.reserve("a", 1, 0);
		this.ticker.set(Duration.ofSeconds(5).minusNanos(1));
		assertThat(store.reserve("a", 1, 0).getDecision().isPermitted()).isFalse();
		this.ticker.set(Duration.ofSeconds(5));
		assertThat(store.reserve("a", 1, 0).getDecision().isPermitted()).isTrue();
		assertThat(size(store)).isEqualTo(1);
	}

	@Test
	void floodOfDistinctKeysIsBoundedByMaxKeys() {
		// 10,000 new keys on a limiter refilling over an hour: idle expiry alone would hold them all.
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofHours(1), RefillStrategy.GREEDY)
			.maxKeys(1_000)
			.build());
		for (int i = 0; i < 10_000; i++) {
			assertThat(take(store, "attacker-" + i)).isEqualTo("ok 9");
		}
		assertThat(size(store)).isEqualTo(1_000);
	}

	@Test
	void sharedBucketIsNotAKeyAndIsNeverForgotten() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		assertThat(take(store, "")).isEqualTo("ok 1");
		assertThat(size(store)).isZero();
		this.ticker.set(Duration.ofMillis(500));
		assertThat(take(store, "")).isEqualTo("ok 0");
		assertThat(take(store, "")).isEqualTo("error 0");
		store.reset("");
		assertThat(take(store, "")).isEqualTo("ok 1");
	}

	@Test
	void tickerNearTheEndOfItsRangeWorks() {
		this.ticker.set(Long.MAX_VALUE - Duration.ofMillis(500).toNanos());
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(1, Duration.ofSeconds(1))
			.build());
		assertThat(take(store, "a")).isEqualTo("ok 0");
		this.ticker.advance(Duration.ofMillis(400));
		RateLimitDecision rejected = store.reserve("a", 1, 0).getDecision();
		assertThat(rejected.isPermitted()).isFalse();
		assertThat(rejected.getRetryAfter()).isEqualTo(Duration.ofMillis(600));
		this.ticker.advance(Duration.ofMillis(600));
		assertThat(take(store, "a")).isEqualTo("ok 0");
	}

	@Test
	void sharedIntervalBucketOnATickerReadingAnythingRefillsOnePeriodAfterItsFirstUse() {
		this.ticker.set(Duration.ofMillis(30));
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofMillis(100), RefillStrategy.INTERVAL)
			.build());
		assertThat(take(store, "")).isEqualTo("ok 0");
		this.ticker.set(Duration.ofMillis(130).minusNanos(1));
		RateLimitDecision early = store.reserve("", 1, 0).getDecision();
		assertThat(early.isPermitted()).isFalse();
		assertThat(early.getRetryAfter()).isEqualTo(Duration.ofNanos(1));
		this.ticker.set(Duration.ofMillis(130));
		assertThat(take(store, "")).isEqualTo("ok 0");
	}

	@Test
	void storeResetForgetsOneKey() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		take(store, "a");
		take(store, "b");
		store.reset("a");
		assertThat(size(store)).isEqualTo(1);
		assertThat(take(store, "a")).isEqualTo("ok 0");
		assertThat(take(store, "b")).isEqualTo("error 0");
	}

	@Test
	void inspectDoesNotCreateKeys() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		assertThat(store.inspect("a").getRemaining()).isEqualTo(1);
		assertThat(size(store)).isZero();
	}

	@Test
	void keyUsedWithinItsHorizonIsKeptHoweverLongItIsUsed() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		for (int half = 0; half <= 20; half++) {
			this.ticker.set(Duration.ofMillis(500L * half));
			take(store, "a");
			assertThat(size(store)).isEqualTo(1);
		}
		// last use at 10s, recorded at 9.5s at the earliest (to a second): kept until 12.5s + 1ns at least
		this.ticker.set(Duration.ofMillis(12_500));
		assertThat(size(store)).isEqualTo(1);
		this.ticker.set(Duration.ofSeconds(14).plusNanos(1));
		assertThat(size(store)).isZero();
	}

	@Test
	void keyWithWindowsIsForgottenOnceIdleAndNotBefore() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(1, Duration.ofSeconds(2)).build());
		assertThat(take(store, "a")).isEqualTo("ok 0");
		// horizon 2s + 1ns, plus the second a use may go unrecorded
		this.ticker.set(Duration.ofSeconds(3));
		assertThat(size(store)).isEqualTo(1);
		this.ticker.set(Duration.ofSeconds(3).plusNanos(1));
		assertThat(size(store)).isZero();
		assertThat(take(store, "a")).isEqualTo("ok 0");
		assertThat(size(store)).isEqualTo(1);
	}

	@Test
	void keyWithOnlyAWindowIsKeptFromItsLastAdmissionByTryAcquire() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(1, Duration.ofSeconds(2)).build());
		assertThat(store.tryAcquire("a", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(2500));
		assertThat(store.tryAcquire("a", 1).isPermitted()).isTrue();
		// idle since 2.5s, not since 0: still held past 0's horizon (3s + 1ns), so its entry counts
		this.ticker.set(Duration.ofMillis(3500));
		assertThat(size(store)).isEqualTo(1);
		assertThat(store.tryAcquire("a", 1).isPermitted()).isFalse();
		this.ticker.set(Duration.ofMillis(5500).plusNanos(1));
		assertThat(size(store)).isZero();
	}

	@Test
	void newKeyBeyondMaxKeysForgetsTheLeastRecentlyUsedKey() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofHours(1), RefillStrategy.GREEDY)
			.maxKeys(8)
			.build());
		for (int i = 0; i < 8; i++) {
			take(store, "key-" + i);
		}
		this.ticker.set(Duration.ofSeconds(2));
		for (int i = 0; i < 8; i++) {
			if (i != 5) {
				take(store, "key-" + i);
			}
		}
		assertThat(take(store, "new")).isEqualTo("ok 9");
		assertThat(size(store)).isEqualTo(8);
		// key-5 was forgotten: it starts full again; the others kept their two calls
		assertThat(store.inspect("key-5").getRemaining()).isEqualTo(10);
		assertThat(store.inspect("key-4").getRemaining()).isEqualTo(8);
		assertThat(store.inspect("key-6").getRemaining()).isEqualTo(8);
	}

	@Test
	void reservationOfAForgottenKeyIsGivenBackToNobody() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 2, Duration.ofHours(1), RefillStrategy.GREEDY)
			.maxKeys(1)
			.build());
		Reservation first = store.reserve("a", 2, 0);
		assertThat(first.getDecision().isPermitted()).isTrue();
		assertThat(take(store, "b")).isEqualTo("ok 1");
		first.cancel();
		assertThat(store.inspect("a").getRemaining()).isEqualTo(2);
		assertThat(take(store, "b")).isEqualTo("ok 0");
	}

	@Test
	void decisionOnAKeyForgottenMeanwhileIsMadeOnTheKeyFoundAgain() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 2, Duration.ofHours(1), RefillStrategy.GREEDY)
			.window(5, Duration.ofHours(1))
			.maxKeys(1)
			.build());
		KeyState held = store.state("a");
		assertThat(take(store, "b")).isEqualTo("ok 1");
		synchronized (held) {
			assertThat(held.retired).isTrue();
		}
		assertThat(store.state("a")).isNotSameAs(held);
		assertThat(take(store, "a")).isEqualTo("ok 1");
		assertThat(size(store)).isEqualTo(1);
	}

	@Test
	void sweepKeepsAnIdleKeyWhoseBucketADecisionJustTookFrom() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		KeyState state = store.state("a");
		this.ticker.set(Duration.ofSeconds(10));
		// a decision at 10s took a token and has not recorded its use yet
		KeyState.Bucket taken = new KeyState.Bucket(1, Duration.ofSeconds(10).toNanos());
		assertThat(state.replaceBucket(state.bucket(), taken)).isTrue();
		store.sweep();
		assertThat(store.state("a")).isSameAs(state);
		assertThat(state.bucket()).isSameAs(taken);
		assertThat(size(store)).isEqualTo(1);
	}

	@Test
	void sweepRetiresTheIdleKeysItForgets() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		KeyState state = store.state("a");
		take(store, "a");
		this.ticker.set(Duration.ofSeconds(3).plusNanos(1));
		store.sweep();
		assertThat(state.bucket()).isSameAs(KeyState.RETIRED);
		assertThat(store.state("a")).isNotSameAs(state);
		assertThat(take(store, "a")).isEqualTo("ok 1");
	}

	@Test
	void tryAcquireDecidesExactlyAsAReservationWithoutWait() {
		for (RefillStrategy strategy : RefillStrategy.values()) {
			RateLimiterSettings settings = RateLimiterSettings.builder()
				.tokenBucket(5, 2, Duration.ofMillis(100), strategy)
				.build();
			InMemoryRateLimitStore trying = store(settings);
			InMemoryRateLimitStore reserving = store(settings);
			long[] costs = { 1, 3, 2, 5, 1, 1, 4, 2 };
			for (int step = 0; step < 40; step++) {
				long cost = costs[step % costs.length];
				RateLimitDecision tried = trying.tryAcquire("a", cost);
				RateLimitDecision reserved = reserving.reserve("a", cost, 0).getDecision();
				assertThat(tried.toString()).as("%s at step %d", strategy, step).isEqualTo(reserved.toString());
				assertThat(tried.getRetryAfter()).isEqualTo(reserved.getRetryAfter());
				assertThat(tried.getRemaining()).isEqualTo(reserved.getRemaining());
				this.ticker.advance(Duration.ofMillis(17 * (step % 4)));
			}
		}
	}

	@Test
	void tryAcquireWaitsForNoReservationMadeBeforeIt() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		// the bucket is reserved a second ahead: a call now, even with tokens to spare, queues behind
		assertThat(store.reserve("a", 2, Duration.ofSeconds(5).toNanos()).getDecision().isPermitted()).isTrue();
		assertThat(store.reserve("a", 1, Duration.ofSeconds(5).toNanos()).getDecision().getWait())
			.isEqualTo(Duration.ofSeconds(1));
		this.ticker.advance(Duration.ofMillis(1500));
		RateLimitDecision decision = store.tryAcquire("a", 1);
		assertThat(decision.isPermitted()).isFalse();
		assertThat(decision.getRetryAfter()).isEqualTo(Duration.ofMillis(500));
		this.ticker.advance(Duration.ofMillis(500));
		assertThat(store.tryAcquire("a", 1).isPermitted()).isTrue();
	}

	@Test
	void tryAcquireOnARetiredBucketIsDecidedOnTheKeyFoundAgain() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		KeyState held = store.state("a");
		store.tryAcquire("a", 2);
		// retired while still in the map, as a sweep or an eviction leaves it before removing it
		assertThat(held.replaceBucket(held.bucket(), KeyState.RETIRED)).isTrue();
		RateLimitDecision decision = store.tryAcquire("a", 1);
		assertThat(decision.isPermitted()).isTrue();
		assertThat(decision.getRemaining()).isEqualTo(1);
		assertThat(store.state("a")).isNotSameAs(held);
		assertThat(held.bucket()).isSameAs(KeyState.RETIRED);
		assertThat(store.heldKeys()).isEqualTo(1);
	}

	@Test
	void tryAcquireOfAKeyWithOneWindowAloneDecidesExactlyAsAReservationWithoutWait() {
		for (WindowAlgorithm algorithm : WindowAlgorithm.values()) {
			RateLimiterSettings settings = RateLimiterSettings.builder()
				.window(6, Duration.ofMillis(100))
				.windowAlgorithm(algorithm)
				.build();
			InMemoryRateLimitStore trying = store(settings);
			InMemoryRateLimitStore reserving = store(settings);
			long[] costs = { 1, 3, 2, 6, 1, 1, 4, 2 };
			for (int step = 0; step < 60; step++) {
				if (step % 20 == 7) {
					// a reservation ahead of now: calls without a wait queue behind it
					RateLimitDecision first = trying.reserve("a", 2, Duration.ofMillis(300).toNanos()).getDecision();
					RateLimitDecision second = reserving.reserve("a", 2, Duration.ofMillis(300).toNanos()).getDecision();
					assertThat(first.toString()).isEqualTo(second.toString());
				}
				long cost = costs[step % costs.length];
				RateLimitDecision tried = trying.tryAcquire("a", cost);
				RateLimitDecision reserved = reserving.reserve("a", cost, 0).getDecision();
				assertThat(tried.toString()).as("%s at step %d", algorithm, step).isEqualTo(reserved.toString());
				assertThat(tried.getRetryAfter()).isEqualTo(reserved.getRetryAfter());
				assertThat(tried.getRemaining()).isEqualTo(reserved.getRemaining());
				assertThat(tried.getLimit()).isEqualTo(reserved.getLimit());
				this.ticker.advance(Duration.ofMillis(13 * (step % 5)));
			}
		}
	}

	@Test
	void onlyAKeyWithOneWindowAndNothingElseTakesTheShorterPath() {
		Duration second = Duration.ofSeconds(1);
		assertThat(store(RateLimiterSettings.builder().window(5, second).build()).state("a").slots.soleWindow)
			.isNotNull();
		assertThat(store(RateLimiterSettings.builder().window(5, second).window(50, Duration.ofMinutes(1)).build())
			.state("a").slots.soleWindow).isNull();
		assertThat(store(RateLimiterSettings.builder().window(5, second).maxConcurrent(2, second).build()).state("a").slots.soleWindow)
			.isNull();
		assertThat(store(RateLimiterSettings.builder()
			.window(5, second)
			.tokenBucket(5, 5, second, RefillStrategy.GREEDY)
			.build()).state("a").slots.soleWindow).isNull();
	}

	@Test
	void tryAcquireOnARetiredKeyWithOneWindowIsDecidedOnTheKeyFoundAgain() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(3, Duration.ofHours(1)).build());
		KeyState held = store.state("a");
		assertThat(store.tryAcquire("a", 3).isPermitted()).isTrue();
		// retired while still in the map, as a sweep or an eviction leaves it before removing it
		synchronized (held) {
			held.retired = true;
		}
		RateLimitDecision decision = store.tryAcquire("a", 1);
		assertThat(decision.isPermitted()).isTrue();
		assertThat(decision.getRemaining()).isEqualTo(2);
		assertThat(store.state("a")).isNotSameAs(held);
		assertThat(store.heldKeys()).isEqualTo(1);
	}

	private String take(InMemoryRateLimitStore store, String key) {
		RateLimitDecision decision = store.reserve(key, 1, 0).getDecision();
		return (decision.isPermitted() ? "ok " : "error ") + decision.getRemaining();
	}

	private static long size(InMemoryRateLimitStore store) {
		return store.keyCount().getAsLong();
	}

	private InMemoryRateLimitStore store(RateLimiterSettings settings) {
		return new InMemoryRateLimitStore("api", settings, this.ticker);
	}

}
