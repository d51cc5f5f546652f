package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.resilience.Ticker;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings.Algorithm;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code max-concurrent: adaptive} through the public limiter API on the in-memory store (SPEC
 * §11): each key admits up to its own limit in force, which the calls' ends move; waiters follow
 * it; a change between a fixed and an adaptive limit at run time keeps the permits held; a store
 * that cannot keep the limit is refused. A key's limit is {@code min-limit} during its first probe,
 * so most tests run it first ({@link #probe}).
 */
class AdaptiveConcurrencyStoreTests extends AsyncFixture {

	private static final Duration LEASE = Duration.ofMinutes(1);

	/** How long each call of these tests takes: a latency of zero would set the lowest at 1 ns. */
	private static final Duration CALL = Duration.ofMillis(10);

	@Test
	void admissionStopsAtTheKeysLimitNotAtMaxLimit() {
		RateLimiter limiter = limiter(adaptive(Algorithm.AIMD, 3, 1, 10));
		probe(limiter, "k");
		acquire(limiter, "k", 3);

		RateLimitExceededException ex = catchThrowableOfType(RateLimitExceededException.class,
				() -> limiter.acquire("k", 1, Duration.ZERO));

		assertThat(ex.getDecision().isConcurrencyLimited()).isTrue();
		assertThat(ex.getDecision().getMaxConcurrent()).isEqualTo(3);
		assertThat(ex.getDecision().getInFlight()).isEqualTo(3);
		RateLimitDecision state = limiter.inspect("k");
		assertThat(state.getMaxConcurrent()).isEqualTo(3);
		assertThat(state.getInFlight()).isEqualTo(3);
		assertThat(state.isPermitted()).isFalse();
		assertThat(limiter.getSettings().maxConcurrent()).isEqualTo(10);
	}

	@Test
	void callsEndingWellWithTheLimitInUseGrowItAndAdmitMore() {
		RateLimiter limiter = limiter(adaptive(Algorithm.AIMD, 3, 1, 10));
		probe(limiter, "k");
		List<Permit> held = acquire(limiter, "k", 3);
		this.ticker.advance(CALL);

		held.get(0).close();

		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(4);
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
		Permit third = limiter.acquire("k", 1, Duration.ZERO);
		assertThat(third.getDecisions().get(0).getMaxConcurrent()).isEqualTo(4);
		limiter.acquire("k", 1, Duration.ZERO);
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("k", 1, Duration.ZERO))
			.getDecision()
			.getInFlight()).isEqualTo(4);
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aDropRecordedBeforeCloseLowersTheKeysLimitAndAPlainCloseDoesNot(Algorithm algorithm) {
		RateLimiter limiter = limiter(adaptive(algorithm, 10, 1, 20));
		probe(limiter, "k");
		hold(limiter, "k", false);
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(10);

		hold(limiter, "k", true);
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(9);

		// the asynchronous close learns the same
		Permit permit = limiter.acquire("k", 1, Duration.ZERO);
		this.ticker.advance(CALL);
		permit.recordDrop();
		assertThat(permit.closeAsync()).isCompleted();
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(8);
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	@Test
	void aDropRecordedAfterCloseIsNotLearnt() {
		RateLimiter limiter = limiter(adaptive(Algorithm.AIMD, 10, 1, 20));
		probe(limiter, "k");
		Permit permit = limiter.acquire("k", 1, Duration.ZERO);
		this.ticker.advance(CALL);
		permit.close();

		permit.recordDrop();
		permit.close();

		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(10);
	}

	@Test
	void eachKeyHasALimitOfItsOwn() {
		RateLimiter limiter = limiter(adaptive(Algorithm.AIMD, 3, 1, 10));
		probe(limiter, "a");
		probe(limiter, "b");
		hold(limiter, "a", true);
		List<Permit> heldB = acquire(limiter, "b", 3);
		this.ticker.advance(CALL);
		heldB.get(0).close();

		assertThat(limiter.inspect("a").getMaxConcurrent()).isEqualTo(2);
		assertThat(limiter.inspect("b").getMaxConcurrent()).isEqualTo(4);
		assertThat(limiter.inspect("c").getMaxConcurrent()).as("a new key, in its first probe").isEqualTo(1);
		acquire(limiter, "a", 2);
		assertThat(limiter.reserve("a", 1, Duration.ZERO).getDecision().isPermitted()).isFalse();
		acquire(limiter, "b", 2);
		assertThat(limiter.reserve("b", 1, Duration.ZERO).getDecision().isPermitted()).isFalse();
		assertThat(limiter.inspect("a").getInFlight()).isEqualTo(2);
		assertThat(limiter.inspect("b").getInFlight()).isEqualTo(4);
	}

	@Test
	void aBlockedCallerWaitingForAPermitIsAdmittedWhenOneComesBack() throws Exception {
		// The wait for a returned permit is bounded in real time: the caller waits on a thread of its own.
		RateLimiter limiter = limiter(adaptive(Algorithm.AIMD, 2, 1, 10));
		probe(limiter, "k");
		List<Permit> held = acquire(limiter, "k", 2);
		CompletableFuture<Permit> waiting = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try {
				waiting.complete(limiter.acquire("k", 1, Duration.ofSeconds(30)));
			}
			catch (Throwable ex) {
				waiting.completeExceptionally(ex);
			}
		}, "adaptive-permit-waiter");
		waiter.start();
		try {
			awaitTimedWaiting(waiter);
			// held back by the key's limit of 2, not by max-limit
			assertThat(waiting).isNotDone();
			this.ticker.advance(CALL);
			held.get(0).close();
			try (Permit permit = waiting.get(10, TimeUnit.SECONDS)) {
				// the call ended well with the limit full: it grew to 3
				assertThat(permit.getDecisions().get(0).getMaxConcurrent()).isEqualTo(3);
				assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
			}
		}
		finally {
			waiter.interrupt();
			waiter.join(5_000);
		}
	}

	@Test
	void anAsyncCallerWaitsAsLongAsTheLimitCutByADropIsFull() {
		AtomicReference<InMemoryRateLimitStore> store = new AtomicReference<>();
		RateLimiter limiter = captured(store, adaptiveBuilder(Algorithm.AIMD, 3, 1, 10));
		probe(limiter, "k");
		List<Permit> held = acquire(limiter, "k", 3);

		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, Duration.ofSeconds(20), this.scheduler);
		assertThat(waiting).isNotDone();
		assertThat(InMemoryPermitWaiterTests.waiters(store.get(), "k")).isOne();

		// 3 cut to 2 with 2 left in flight: nothing for the waiter yet
		this.ticker.advance(CALL);
		held.get(0).recordDrop();
		held.get(0).close();
		this.scheduler.runDue();
		assertThat(waiting).isNotDone();
		assertThat(InMemoryPermitWaiterTests.waiters(store.get(), "k")).isOne();
		// a call that ends well returns a permit of the limit of 2 (which grows back one step a
		// round trip, after a cut), and it goes to the waiter
		held.get(1).close();
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(2);
		this.scheduler.runDue();
		assertThat(waiting).isCompleted();
		assertThat(InMemoryPermitWaiterTests.waiters(store.get(), "k")).isZero();
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
		waiting.getNow(null).close();
		held.get(2).close();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		assertThat(this.scheduler.pending()).isEmpty();
	}

	@Test
	void aWaitForAPermitEndsWithAReturnAndAReservationThenSeesTheLimitItLeft() {
		RateLimiter limiter = limiter(adaptive(Algorithm.AIMD, 2, 1, 10));
		probe(limiter, "k");
		List<Permit> held = acquire(limiter, "k", 2);
		CompletableFuture<Void> dropped = limiter.awaitPermitAsync("k", Duration.ofSeconds(20), this.scheduler);
		assertThat(dropped).isNotDone();

		this.ticker.advance(CALL);
		held.get(0).recordDrop();
		held.get(0).close();

		assertThat(dropped).isCompleted();
		// the drop cut the limit to the one call still in flight
		assertThat(limiter.reserveAsync("k", 1, Duration.ZERO).join().getDecision().isPermitted()).isFalse();
		CompletableFuture<Void> returned = limiter.awaitPermitAsync("k", Duration.ofSeconds(20), this.scheduler);
		held.get(1).close();
		assertThat(returned).isCompleted();
		Reservation reservation = limiter.reserveAsync("k", 1, Duration.ZERO).join();
		assertThat(reservation.getDecision().isPermitted()).isTrue();
		reservation.release();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	@Test
	void changingAFixedLimitToAnAdaptiveOneAndBackKeepsThePermitsHeld() {
		AtomicReference<InMemoryRateLimitStore> store = new AtomicReference<>();
		RateLimiterRegistry registry = registry().store("captured", (name, settings, ticker) -> {
			store.set(new InMemoryRateLimitStore(name, settings, ticker));
			return store.get();
		}).limiter("api", fixedBuilder(4).store("captured").build()).build();
		RateLimiter limiter = registry.get("api");
		List<Permit> held = acquire(limiter, "k", 4);
		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, Duration.ofMinutes(1), this.scheduler);

		registry.updateSettings("api", adaptiveBuilder(Algorithm.AIMD, 2, 1, 10).store("captured").build());

		RateLimitDecision state = limiter.inspect("k");
		assertThat(state.getInFlight()).isEqualTo(4);
		assertThat(state.getMaxConcurrent()).as("the key's first probe, at min-limit").isEqualTo(1);
		assertThat(waiting).isNotDone();
		assertThat(InMemoryPermitWaiterTests.waiters(store.get(), "k")).isOne();
		// the permits held count against the new limit: the waiter is let in once none is in flight
		this.ticker.advance(CALL);
		for (int i = 0; i < 3; i++) {
			held.get(i).close();
			this.scheduler.runDue();
			assertThat(waiting).isNotDone();
		}
		held.get(0).close();
		assertThat(limiter.inspect("k").getInFlight()).as("a permit closed twice returns one").isOne();
		held.get(3).close();
		this.scheduler.runDue();
		assertThat(waiting).isCompleted();
		assertThat(limiter.inspect("k").getInFlight()).isOne();
		this.ticker.advance(CALL);
		waiting.getNow(null).close();
		waiting.getNow(null).close();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		probe(limiter, "k");
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(2);
		List<Permit> again = acquire(limiter, "k", 2);
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isFalse();

		registry.updateSettings("api", fixedBuilder(3).store("captured").build());

		state = limiter.inspect("k");
		assertThat(state.getInFlight()).isEqualTo(2);
		assertThat(state.getMaxConcurrent()).isEqualTo(3);
		again.add(limiter.acquire("k", 1, Duration.ZERO));
		assertThat(limiter.inspect("k").isPermitted()).isFalse();
		// every permit comes back once: none is lost, none counted twice
		again.forEach(Permit::close);
		again.forEach(Permit::close);
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		acquire(limiter, "k", 3);
		assertThat(limiter.reserve("k", 1, Duration.ZERO).getDecision().isPermitted()).isFalse();
		assertThat(InMemoryPermitWaiterTests.waiters(store.get(), "k")).isZero();
		assertThat(this.scheduler.pending()).isEmpty();
	}

	@Test
	void newAdaptiveBoundsKeepEachKeysLimitWithinThem() {
		RateLimiterRegistry registry = registry().limiter("api", adaptive(Algorithm.AIMD, 6, 1, 10)).build();
		RateLimiter limiter = registry.get("api");
		probe(limiter, "k");
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(6);

		// new settings start a probe of each key, after which its limit goes on within them
		registry.updateSettings("api", adaptive(Algorithm.GRADIENT, 3, 1, 4));
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(1);
		probe(limiter, "k");
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(4);
		registry.updateSettings("api", adaptive(Algorithm.GRADIENT, 2, 1, 40));
		probe(limiter, "k");
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(4);
		probe(limiter, "new");
		assertThat(limiter.inspect("new").getMaxConcurrent()).isEqualTo(2);
	}

	@Test
	void aPausedKeyShowsItsOwnLimitAndItsCallsInFlight() {
		RateLimiter limiter = limiter(adaptiveBuilder(Algorithm.AIMD, 10, 1, 20)
			.pauseOnThrottle(new PauseOnThrottleSettings(true, Set.of(429), Duration.ofSeconds(1), Duration.ofMinutes(1), 0))
			.build());
		probe(limiter, "k");
		hold(limiter, "k", true);
		List<Permit> held = acquire(limiter, "k", 2);

		limiter.pause("k", Duration.ofSeconds(5));
		limiter.pause("new", Duration.ofSeconds(5));

		RateLimitDecision state = limiter.inspect("k");
		assertThat(state.isPaused()).isTrue();
		assertThat(state.getMaxConcurrent()).as("the key's limit, not max-limit").isEqualTo(9);
		assertThat(state.getInFlight()).isEqualTo(2);
		assertThat(state.getRemaining()).isZero();
		RateLimitDecision rejected = limiter.reserve("k", 1, Duration.ZERO).getDecision();
		assertThat(rejected.isPaused()).isTrue();
		assertThat(rejected.getMaxConcurrent()).isEqualTo(9);
		assertThat(rejected.getInFlight()).isEqualTo(2);
		RateLimitDecision unheld = limiter.inspect("new");
		assertThat(unheld.isPaused()).isTrue();
		assertThat(unheld.getMaxConcurrent()).as("a new key, in its first probe").isEqualTo(1);
		assertThat(unheld.getInFlight()).isZero();
		held.forEach(Permit::close);
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(9);
	}

	@Test
	void aStoreThatCannotKeepAnAdaptiveLimitIsRefused() {
		RateLimiterSettings settings = adaptiveBuilder(Algorithm.GRADIENT, 10, 1, 200)
			.store("remote")
			.build();

		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry().store("remote", AdaptiveConcurrencyStoreTests::remote)
				.limiter("partner", settings)
				.build())
			.withMessageContaining("max-concurrent is adaptive for rate limiter 'partner'")
			.withMessageContaining("remote store cannot keep an adaptive limit");
	}

	@Test
	void aChangeToAdaptiveOnAStoreThatCannotKeepItIsRefusedAndTheFixedLimitStays() {
		RateLimiterRegistry registry = registry().store("remote", AdaptiveConcurrencyStoreTests::remote)
			.limiter("partner", fixedBuilder(2).store("remote").build())
			.build();
		RateLimiter limiter = registry.get("partner");
		RateLimiterSettings before = limiter.getSettings();

		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.updateSettings("partner",
					adaptiveBuilder(Algorithm.AIMD, 1, 1, 5).store("remote").build()))
			.withMessageContaining("remote store cannot keep an adaptive limit");
		assertThat(limiter.getSettings()).isSameAs(before);
		acquire(limiter, "k", 2);
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(2);
	}

	/** Runs the key's probe at the latency of {@link #CALL}: its limit is then the one it goes on from. */
	private void probe(RateLimiter limiter, String key) {
		AdaptiveProbe.run(limiter, key, this.ticker::advance, CALL);
	}

	/** A store of another type over the in-memory one, which keeps the default: it cannot adapt. */
	private static RateLimitStore remote(String name, RateLimiterSettings settings, Ticker ticker) {
		return new ForwardingStore("remote", new InMemoryRateLimitStore(name, settings, ticker));
	}

	private RateLimiter captured(AtomicReference<InMemoryRateLimitStore> store, RateLimiterSettings.Builder settings) {
		return registry().store("captured", (name, limiterSettings, ticker) -> {
			store.set(new InMemoryRateLimitStore(name, limiterSettings, ticker));
			return store.get();
		}).limiter("api", settings.store("captured").build()).build().get("api");
	}

	/** Runs one call of {@link #CALL} that ends with a drop or not. */
	private void hold(RateLimiter limiter, String key, boolean dropped) {
		try (Permit permit = limiter.acquire(key, 1, Duration.ZERO)) {
			this.ticker.advance(CALL);
			if (dropped) {
				permit.recordDrop();
			}
		}
	}

	private static List<Permit> acquire(RateLimiter limiter, String key, int calls) {
		List<Permit> permits = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			permits.add(limiter.acquire(key, 1, Duration.ZERO));
		}
		return permits;
	}

	private static RateLimiterSettings adaptive(Algorithm algorithm, int initial, int min, int max) {
		return adaptiveBuilder(algorithm, initial, min, max).build();
	}

	private static RateLimiterSettings.Builder adaptiveBuilder(Algorithm algorithm, int initial, int min, int max) {
		return RateLimiterSettings.builder()
			.adaptiveConcurrency(new AdaptiveConcurrencySettings(algorithm, initial, min, max), LEASE);
	}

	private static RateLimiterSettings fixed(int maxConcurrent) {
		return fixedBuilder(maxConcurrent).build();
	}

	private static RateLimiterSettings.Builder fixedBuilder(int maxConcurrent) {
		return RateLimiterSettings.builder().maxConcurrent(maxConcurrent, LEASE);
	}

	private static void awaitTimedWaiting(Thread thread) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (thread.getState() != Thread.State.TIMED_WAITING) {
			assertThat(System.nanoTime()).as("%s waiting for a permit", thread.getName()).isLessThan(deadline);
			Thread.sleep(1);
		}
	}

}
