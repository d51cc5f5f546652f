package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualScheduler;
import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory store's waiters for a returned permit, which hold no thread: completed when a
 * permit of their key comes back, the oldest lease expires or the time is up, and never left
 * behind.
 */
class InMemoryPermitWaiterTests {

	private static final long TEN_SECONDS = Duration.ofSeconds(10).toNanos();

	private final ManualTicker ticker = new ManualTicker();

	private final ManualScheduler scheduler = new ManualScheduler(this.ticker);

	private final InMemoryRateLimitStore store = new InMemoryRateLimitStore("db",
			RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build(), this.ticker);

	@Test
	void aReturnedPermitCompletesTheWaiter() {
		Reservation held = this.store.reserve("k", 1, 0);

		CompletableFuture<Void> waiter = this.store.awaitPermitAsync("k", TEN_SECONDS, this.scheduler);

		assertThat(waiter).isNotDone();
		assertThat(waiters("k")).isOne();
		assertThat(this.scheduler.delays()).containsExactly(Duration.ofSeconds(10));
		held.release();
		assertThat(waiter).isCompleted();
		assertThat(waiters("k")).isZero();
		// its timer is cancelled
		assertThat(this.scheduler.pending().size()).isZero();
	}

	@Test
	void aPermitGivenBackCompletesTheWaiterToo() {
		Reservation held = this.store.reserve("k", 1, 0);
		CompletableFuture<Void> waiter = this.store.awaitPermitAsync("k", TEN_SECONDS, this.scheduler);

		held.cancel();

		assertThat(waiter).isCompleted();
	}

	@Test
	void aPermitOfAnotherKeyLeavesTheWaiterWaiting() {
		this.store.reserve("a", 1, 0);
		Reservation heldB = this.store.reserve("b", 1, 0);
		CompletableFuture<Void> waiter = this.store.awaitPermitAsync("a", TEN_SECONDS, this.scheduler);

		heldB.release();

		assertThat(waiter).isNotDone();
		assertThat(waiters("a")).isOne();
	}

	@Test
	void aWaiterIsCompletedWhenItsTimeIsUpAndLeavesNothingBehind() {
		this.store.reserve("k", 1, 0);
		CompletableFuture<Void> waiter = this.store.awaitPermitAsync("k", TEN_SECONDS, this.scheduler);

		this.scheduler.runAll();

		assertThat(waiter).isCompleted();
		assertThat(this.ticker.read()).isEqualTo(TEN_SECONDS);
		assertThat(waiters("k")).isZero();
	}

	@Test
	void aWaiterIsCompletedWhenTheOldestLeaseExpires() {
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("db",
				RateLimiterSettings.builder().maxConcurrent(1, Duration.ofSeconds(2)).build(), this.ticker);
		store.reserve("k", 1, 0);
		this.ticker.advance(Duration.ofMillis(500));

		CompletableFuture<Void> waiter = store.awaitPermitAsync("k", TEN_SECONDS, this.scheduler);

		assertThat(this.scheduler.delays()).containsExactly(Duration.ofMillis(1500));
		this.scheduler.runAll();
		assertThat(waiter).isCompleted();
		assertThat(store.reserve("k", 1, 0).getDecision().isPermitted()).isTrue();
	}

	@Test
	void aCancelledWaiterRemovesItselfAndItsTimer() {
		Reservation held = this.store.reserve("k", 1, 0);
		CompletableFuture<Void> waiter = this.store.awaitPermitAsync("k", TEN_SECONDS, this.scheduler);

		waiter.cancel(true);

		assertThat(waiters("k")).isZero();
		assertThat(this.scheduler.pending().size()).isZero();
		held.release();
		assertThat(this.store.inspect("k").getInFlight()).isZero();
	}

	@Test
	void aPermitAlreadyFreeCompletesAtOnce() {
		Reservation held = this.store.reserve("k", 1, 0);
		held.release();

		assertThat(this.store.awaitPermitAsync("k", TEN_SECONDS, this.scheduler)).isCompleted();
		assertThat(this.scheduler.delays()).isEmpty();
		assertThat(waiters("k")).isZero();
	}

	@Test
	void aLimiterWithoutPermitsNeverWaits() {
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api",
				RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build(), this.ticker);

		assertThat(store.awaitPermitAsync("k", TEN_SECONDS, this.scheduler)).isCompleted();
	}

	@Test
	void anAsyncAcquireWaitsForAReturnedPermitOfItsKeyOnly() {
		AtomicInteger asksForA = new AtomicInteger();
		AtomicReference<InMemoryRateLimitStore> memory = new AtomicReference<>();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.store("counting", (name, settings, ticker) -> {
				memory.set(new InMemoryRateLimitStore(name, settings, ticker));
				return new ForwardingStore("counting", memory.get()) {

					@Override
					public Reservation reserve(String key, long cost, long maxWaitNanos) {
						if (key.equals("a")) {
							asksForA.incrementAndGet();
						}
						return super.reserve(key, cost, maxWaitNanos);
					}

				};
			})
			.limiter("c", RateLimiterSettings.builder().store("counting").maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build()
			.get("c");
		Permit heldA = limiter.acquire("a", 1, Duration.ZERO);
		Permit heldB = limiter.acquire("b", 1, Duration.ZERO);

		CompletableFuture<Permit> waiting = limiter.acquireAsync("a", 1, Duration.ofSeconds(20), this.scheduler);

		// as the blocking form: the first decision, one more in the rounds, then the wait
		assertThat(asksForA).hasValue(3);
		assertThat(waiters(memory.get(), "a")).isOne();
		heldB.close();
		this.scheduler.runDue();
		assertThat(asksForA).hasValue(3);
		assertThat(waiting).isNotDone();
		heldA.close();
		this.scheduler.runDue();
		assertThat(waiting).isCompleted();
		assertThat(asksForA).hasValue(4);
		assertThat(waiters(memory.get(), "a")).isZero();
		assertThat(this.scheduler.pending().size()).isZero();
		waiting.getNow(null).close();
		assertThat(limiter.inspect("a").getInFlight()).isZero();
	}

	@Test
	void anAsyncAcquireIsRejectedWhenNoPermitComesBackInTime() {
		AtomicReference<InMemoryRateLimitStore> memory = new AtomicReference<>();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.store("captured", (name, settings, ticker) -> {
				memory.set(new InMemoryRateLimitStore(name, settings, ticker));
				return memory.get();
			})
			.limiter("c", RateLimiterSettings.builder().store("captured").maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build()
			.get("c");
		limiter.acquire("k", 1, Duration.ZERO);

		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, Duration.ofMillis(100), this.scheduler);
		this.scheduler.runAll();

		RateLimitExceededException ex = (RateLimitExceededException) AsyncFixture.failure(waiting);
		assertThat(ex.getDecision().isConcurrencyLimited()).isTrue();
		assertThat(ex.getDecision().getInFlight()).isOne();
		assertThat(this.ticker.read()).isEqualTo(Duration.ofMillis(100).toNanos());
		assertThat(limiter.inspect("k").getInFlight()).isOne();
		assertThat(waiters(memory.get(), "k")).isZero();
		assertThat(this.scheduler.pending().size()).isZero();
	}

	@Test
	void aStoreThatCannotBeToldOfReturnedPermitsRechecksSoonByDefault() {
		RateLimitStore polling = new RateLimitStore() {

			@Override
			public String getType() {
				return "polling";
			}

			@Override
			public Reservation reserve(String key, long cost, long maxWaitNanos) {
				throw new UnsupportedOperationException();
			}

			@Override
			public RateLimitDecision tryAcquire(String key, long cost) {
				throw new UnsupportedOperationException();
			}

			@Override
			public void awaitPermit(String key, long nanos) {
				throw new UnsupportedOperationException();
			}

			@Override
			public RateLimitDecision inspect(String key) {
				throw new UnsupportedOperationException();
			}

			@Override
			public void reset(String key) {
			}

		};

		CompletableFuture<Void> recheck = polling.awaitPermitAsync("k", TEN_SECONDS, this.scheduler);
		CompletableFuture<Void> shortWait = polling.awaitPermitAsync("k", Duration.ofMillis(5).toNanos(), this.scheduler);
		CompletableFuture<Void> cancelled = polling.awaitPermitAsync("k", TEN_SECONDS, this.scheduler);
		cancelled.cancel(true);

		assertThat(this.scheduler.delays()).containsExactly(Duration.ofMillis(RateLimitStore.PERMIT_RECHECK_MILLIS),
				Duration.ofMillis(5), Duration.ofMillis(RateLimitStore.PERMIT_RECHECK_MILLIS));
		assertThat(this.scheduler.pending().size()).isEqualTo(2);
		this.scheduler.runAll();
		assertThat(recheck).isCompleted();
		assertThat(shortWait).isCompleted();
		assertThat(this.ticker.read()).isEqualTo(Duration.ofMillis(RateLimitStore.PERMIT_RECHECK_MILLIS).toNanos());
	}

	private int waiters(String key) {
		return waiters(this.store, key);
	}

	static int waiters(InMemoryRateLimitStore store, String key) {
		KeyState state = store.state(key);
		synchronized (state) {
			Set<CompletableFuture<Void>> futures = (state.slots != null) ? state.slots.permitFutures : null;
			return (futures != null) ? futures.size() : 0;
		}
	}

}
