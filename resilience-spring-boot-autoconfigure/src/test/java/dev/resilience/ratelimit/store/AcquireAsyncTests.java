package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The asynchronous acquire: the blocking form's decisions, waits scheduled instead of slept, every
 * outcome through the future, and cancellation giving everything back (docs/async-and-reactive.md).
 */
class AcquireAsyncTests extends AsyncFixture {

	@Test
	void aCallAdmittedAtOnceCompletesBeforeAcquireAsyncReturns() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(10, Duration.ofSeconds(1)).build());

		CompletableFuture<Permit> admitted = limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler);

		assertThat(admitted).isCompleted();
		Permit permit = admitted.getNow(null);
		assertThat(permit.getWaited()).isZero();
		assertThat(permit.getDecisions()).singleElement()
			.satisfies((decision) -> assertThat(decision.getRemaining()).isEqualTo(9));
		assertThat(this.decisions).hasSize(1);
		assertThat(this.scheduler.delays()).isEmpty();
		assertThat(this.scheduler.pending().size()).isZero();
	}

	@Test
	void theLimitersMaxWaitIsTheDefault() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(1, Duration.ofSeconds(1))
			.maxWait(Duration.ofSeconds(2))
			.build());
		limiter.acquireAsync("k", 1, this.scheduler).getNow(null);

		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, this.scheduler);

		assertThat(waiting).isNotDone();
		assertThat(this.scheduler.delays()).containsExactly(Duration.ofSeconds(1));
	}

	@Test
	void aReservedSlotIsWaitedForByAScheduledTaskWhileTheCallerGoesOn() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		limiter.acquire("k", 1, Duration.ZERO);
		this.decisions.clear();

		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler);

		// the caller got the future back before the wait: nothing slept, nobody told yet
		assertThat(waiting).isNotDone();
		assertThat(this.ticker.read()).isZero();
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(this.decisions).isEmpty();
		assertThat(this.scheduler.delays()).containsExactly(Duration.ofSeconds(1));
		// the slot at 1 s is the call's: another caller comes after it
		assertThat(limiter.inspect("k").getRetryAfter()).isEqualTo(Duration.ofSeconds(2));

		this.scheduler.runAll();

		assertThat(waiting).isCompleted();
		assertThat(waiting.getNow(null).getWaited()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.decisions).singleElement()
			.satisfies((decision) -> assertThat(decision.getWait()).isEqualTo(Duration.ofSeconds(1)));
		assertThat(this.ticker.sleeps()).isEmpty();
		assertThat(limiter.reserve("k", 1, Duration.ofSeconds(5)).getDecision().getWait()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void aSingleCallThatHasToWaitIsDecidedOnceAndCountsItsWaitFromBeforeTheDecision() {
		AtomicInteger reservations = new AtomicInteger();
		RateLimiter limiter = registry().store("slow", (name, settings, ticker) -> new ForwardingStore("slow",
				new InMemoryRateLimitStore(name, settings, ticker)) {

			@Override
			public Reservation reserve(String key, long cost, long maxWaitNanos) {
				reservations.incrementAndGet();
				Reservation reservation = super.reserve(key, cost, maxWaitNanos);
				// a decision that takes 5 ms, as a remote store's round trip would
				AcquireAsyncTests.this.ticker.advance(Duration.ofMillis(5));
				return reservation;
			}

		}).limiter("api", RateLimiterSettings.builder().store("slow").window(1, Duration.ofSeconds(1)).build())
			.build()
			.get("api");
		limiter.acquire("k", 1, Duration.ZERO);
		this.decisions.clear();
		reservations.set(0);

		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler);

		assertThat(waiting).isNotDone();
		assertThat(this.scheduler.delays()).containsExactly(Duration.ofSeconds(1));
		this.scheduler.runAll();
		assertThat(reservations).hasValue(1);
		// the slot was 1 s from the decision, which began 5 ms before the wait was scheduled
		assertThat(waiting.getNow(null).getWaited()).isEqualTo(Duration.ofMillis(1005));
		assertThat(this.decisions).singleElement()
			.satisfies((decision) -> assertThat(decision.getWait()).isEqualTo(Duration.ofMillis(1005)));
	}

	@Test
	void aRejectionCompletesExceptionallyWithTheBlockingFormsExceptionAndEvents() {
		RateLimiterSettings settings = RateLimiterSettings.builder().window(1, Duration.ofSeconds(60)).build();
		RateLimiter blocking = limiter(settings);
		blocking.acquire("k", 1, Duration.ZERO);
		RateLimitExceededException expected = catchThrowableOfType(RateLimitExceededException.class,
				() -> blocking.acquire("k", 1, Duration.ofSeconds(5)));
		List<String> blockingEvents = List.copyOf(this.decisions.stream().map(Object::toString).toList());
		this.decisions.clear();
		RateLimiter async = limiter(settings);
		async.acquireAsync("k", 1, Duration.ZERO, this.scheduler);

		CompletableFuture<Permit> rejected = async.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler);

		assertThat(failure(rejected)).isInstanceOf(RateLimitExceededException.class)
			.hasMessage(expected.getMessage())
			.satisfies((ex) -> assertThat(((RateLimitExceededException) ex).getRetryAfter())
				.isEqualTo(expected.getRetryAfter()));
		assertThat(this.decisions).map(Object::toString).isEqualTo(blockingEvents);
		assertThat(this.scheduler.pending().size()).isZero();
	}

	@Test
	void argumentErrorsCompleteTheFutureExceptionallyInsteadOfThrowing() {
		RateLimiterRegistry registry = registry().limiter("api", RateLimiterSettings.builder()
			.window(3, Duration.ofSeconds(1))
			.build()).build();
		RateLimiter limiter = registry.get("api");
		String zeroCost = catchThrowableOfType(IllegalArgumentException.class,
				() -> limiter.acquire("k", 0, Duration.ZERO)).getMessage();
		String tooCostly = catchThrowableOfType(IllegalArgumentException.class,
				() -> limiter.acquire("k", 4, Duration.ZERO)).getMessage();

		assertThat(failure(limiter.acquireAsync("k", 0, Duration.ZERO, this.scheduler)))
			.isInstanceOf(IllegalArgumentException.class).hasMessage(zeroCost);
		assertThat(failure(limiter.acquireAsync("k", 4, Duration.ZERO, this.scheduler)))
			.isInstanceOf(IllegalArgumentException.class).hasMessage(tooCostly);
		assertThat(failure(limiter.acquireAsync("k", 1, Duration.ofSeconds(-1), this.scheduler)))
			.isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait must not be negative");
		assertThat(failure(limiter.acquireAsync(null, 1, Duration.ZERO, this.scheduler)))
			.isInstanceOf(NullPointerException.class);
		assertThat(failure(limiter.acquireAsync("k", 1, Duration.ZERO, null))).isInstanceOf(NullPointerException.class);
		assertThat(failure(registry.acquireAllAsync(List.of(), this.scheduler)))
			.isInstanceOf(IllegalArgumentException.class).hasMessage("at least one rate limit request is needed");
		assertThat(failure(registry.acquireAllAsync(List.of(new RateLimitRequest(limiter, "k", 1, Duration.ZERO),
				new RateLimitRequest(limiter, "k", 1, Duration.ZERO)), this.scheduler)))
			.isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("Rate limiter 'api' is asked twice");
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(3);
	}

	@Test
	void aWaitImposedByOneLimiterDoesNotBlockAnotherLimiterForOthers() {
		RateLimiterRegistry registry = registry()
			.limiter("per-user", RateLimiterSettings.builder().window(1, Duration.ofSeconds(4)).build())
			.limiter("global", RateLimiterSettings.builder()
				.tokenBucket(100, 100, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.build())
			.build();
		List<RateLimitRequest> userX = List.of(
				new RateLimitRequest(registry.get("per-user"), "x", 1, Duration.ofSeconds(5)),
				new RateLimitRequest(registry.get("global"), "", 1, Duration.ofSeconds(5)));
		registry.acquireAllAsync(userX, this.scheduler).getNow(null).close();

		CompletableFuture<Permit> waiting = registry.acquireAllAsync(userX, this.scheduler);

		assertThat(waiting).isNotDone();
		this.ticker.advance(Duration.ofMillis(1));
		RateLimitDecision other = registry.get("global").tryAcquire("", 1);
		assertThat(other.isPermitted()).isTrue();
		assertThat(other.getRemaining()).isEqualTo(98);
		this.scheduler.runAll();
		assertThat(waiting.getNow(null).getWaited()).isEqualTo(Duration.ofSeconds(4));
		assertThat(this.scheduler.delays()).containsExactly(Duration.ofSeconds(4));
	}

	@Test
	void aCallWhoseShareOfAnotherLimiterWasTakenDuringItsWaitAsksAgainWithinItsMaxWait() {
		RateLimiterRegistry registry = registry()
			.limiter("per-user", RateLimiterSettings.builder().window(1, Duration.ofSeconds(4)).build())
			.limiter("global", RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.build();
		List<RateLimitRequest> userX = List.of(
				new RateLimitRequest(registry.get("per-user"), "x", 1, Duration.ofSeconds(10)),
				new RateLimitRequest(registry.get("global"), "", 1, Duration.ofSeconds(10)));
		registry.acquireAllAsync(userX, this.scheduler).getNow(null).close();
		this.decisions.clear();

		// per-user admits at 4 s; at 4 s the global slot taken at 3.5 s is only free at 4.5 s
		CompletableFuture<Permit> waiting = registry.acquireAllAsync(userX, this.scheduler);
		this.ticker.set(Duration.ofMillis(3500));
		registry.get("global").tryAcquire("", 1);
		this.scheduler.runAll();

		assertThat(waiting.getNow(null).getWaited()).isEqualTo(Duration.ofMillis(4500));
		assertThat(this.scheduler.delays()).containsExactly(Duration.ofSeconds(4), Duration.ofMillis(500));
		assertThat(this.decisions).extracting(RateLimitDecision::getLimiterName, RateLimitDecision::getWait)
			.containsExactly(tuple("global", Duration.ZERO), tuple("per-user", Duration.ofMillis(4500)),
					tuple("global", Duration.ofMillis(4500)));
		// each limiter counts the call once, at 4.5 s
		assertThat(registry.get("per-user").tryAcquire("x", 1).getRetryAfter()).isEqualTo(Duration.ofSeconds(4));
		assertThat(registry.get("global").tryAcquire("", 1).getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.ticker.sleeps()).isEmpty();
	}

	@Test
	void aCallThatLacksAPermitAndASlotInTimeIsRejectedWithoutWaiting() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(1, Duration.ofSeconds(60))
			.maxConcurrent(1, Duration.ofMinutes(1))
			.build());
		Permit held = limiter.acquire("k", 1, Duration.ZERO);

		assertThat(failure(limiter.acquireAsync("k", 1, Duration.ofSeconds(30), this.scheduler)))
			.isInstanceOf(RateLimitExceededException.class);
		assertThat(this.scheduler.pending().size()).isZero();
		held.close();
	}

	@Test
	void aLimiterThatFailsGivesBackWhatTheOthersTook() {
		RateLimiterRegistry registry = registry()
			.store("broken", (name, settings, ticker) -> new ForwardingStore("broken",
					new InMemoryRateLimitStore(name, settings, ticker)) {

				@Override
				public Reservation reserve(String key, long cost, long maxWaitNanos) {
					throw new IllegalStateException("store down");
				}

			})
			.limiter("a", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.limiter("failing", RateLimiterSettings.builder().store("broken").window(100, Duration.ofSeconds(1)).build())
			.build();
		RateLimiter a = registry.get("a");

		CompletableFuture<Permit> failed = registry.acquireAllAsync(List.of(new RateLimitRequest(a, "k", 1, Duration.ZERO),
				new RateLimitRequest(registry.get("failing"), "k", 1, Duration.ZERO)), this.scheduler);
		this.scheduler.runAll();

		assertThat(failure(failed)).isInstanceOf(IllegalStateException.class).hasMessage("store down");
		assertThat(a.inspect("k").getInFlight()).isZero();
	}

	@Test
	void aDecisionCompletedOnTheStoresThreadContinuesOnTheScheduler() throws Exception {
		AtomicReference<Runnable> decide = new AtomicReference<>();
		List<Thread> callersThreads = new CopyOnWriteArrayList<>();
		RateLimiter limiter = registry().store("remote", (name, settings, ticker) -> deferred(
				new InMemoryRateLimitStore(name, settings, ticker), decide))
			.listener((l, decision) -> callersThreads.add(Thread.currentThread()))
			.limiter("api", RateLimiterSettings.builder().store("remote").window(10, Duration.ofSeconds(1)).build())
			.build()
			.get("api");

		CompletableFuture<Permit> admitted = limiter.acquireAsync("k", 1, Duration.ZERO, this.scheduler);
		admitted.thenRun(() -> callersThreads.add(Thread.currentThread()));
		Thread io = new Thread(decide.get(), "store-io");
		io.start();
		io.join();

		// decided on the store's thread: nothing of the caller's ran there
		assertThat(admitted).isNotDone();
		assertThat(this.decisions).isEmpty();
		this.scheduler.runAll();
		assertThat(admitted).isCompleted();
		assertThat(this.decisions).isNotEmpty();
		// the listener and the caller's continuation ran on the scheduler (here: this thread)
		assertThat(callersThreads).containsExactly(Thread.currentThread(), Thread.currentThread());
	}

	@Test
	void cancellingWhileWaitingForTheSlotGivesItBack() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(1, Duration.ofSeconds(1))
			.maxConcurrent(2, Duration.ofMinutes(1))
			.build());
		Permit first = limiter.acquire("k", 1, Duration.ZERO);
		Object before = state(limiter, "k");
		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler);
		assertThat(state(limiter, "k")).isNotEqualTo(before);

		assertThat(waiting.cancel(true)).isTrue();

		assertThat(state(limiter, "k")).isEqualTo(before);
		assertThat(this.scheduler.pending().size()).isZero();
		this.scheduler.runAll();
		assertThat(state(limiter, "k")).isEqualTo(before);
		assertThat(limiter.reserve("k", 1, Duration.ofSeconds(5)).getDecision().getWait()).isEqualTo(Duration.ofSeconds(1));
		first.close();
	}

	@Test
	void cancellingStackedLimitersWhileWaitingForTheLatestSlotGivesBackEverything() {
		RateLimiterRegistry registry = registry()
			.limiter("per-user", RateLimiterSettings.builder().window(1, Duration.ofSeconds(4)).build())
			.limiter("global", RateLimiterSettings.builder()
				.tokenBucket(100, 100, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.maxConcurrent(10, Duration.ofMinutes(1))
				.build())
			.build();
		RateLimiter perUser = registry.get("per-user");
		RateLimiter global = registry.get("global");
		List<RateLimitRequest> userX = List.of(new RateLimitRequest(perUser, "x", 1, Duration.ofSeconds(5)),
				new RateLimitRequest(global, "", 1, Duration.ofSeconds(5)));
		registry.acquireAllAsync(userX, this.scheduler).getNow(null).close();
		Object perUserBefore = state(perUser, "x");
		Object globalBefore = state(global, "");

		CompletableFuture<Permit> waiting = registry.acquireAllAsync(userX, this.scheduler);
		assertThat(waiting).isNotDone();
		waiting.cancel(false);

		assertThat(state(perUser, "x")).isEqualTo(perUserBefore);
		assertThat(state(global, "")).isEqualTo(globalBefore);
		assertThat(this.scheduler.pending().size()).isZero();
	}

	@Test
	void cancellingWhileWaitingForAReturnedPermitLeavesNothingBehind() {
		AtomicReference<InMemoryRateLimitStore> memory = new AtomicReference<>();
		RateLimiter limiter = registry().store("captured", (name, settings, ticker) -> {
			memory.set(new InMemoryRateLimitStore(name, settings, ticker));
			return memory.get();
		})
			.limiter("api", RateLimiterSettings.builder()
				.store("captured")
				.window(10, Duration.ofSeconds(1))
				.maxConcurrent(1, Duration.ofMinutes(1))
				.build())
			.build()
			.get("api");
		Permit held = limiter.acquire("k", 1, Duration.ZERO);
		Object before = state(limiter, "k");
		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, Duration.ofSeconds(10), this.scheduler);
		assertThat(InMemoryPermitWaiterTests.waiters(memory.get(), "k")).isOne();

		waiting.cancel(true);

		assertThat(state(limiter, "k")).isEqualTo(before);
		assertThat(InMemoryPermitWaiterTests.waiters(memory.get(), "k")).isZero();
		assertThat(this.scheduler.pending().size()).isZero();
		held.close();
		this.scheduler.runAll();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		assertThat(limiter.inspect("k").getQuotas().get(0).remaining()).isEqualTo(9);
	}

	@Test
	void cancellingWhileTheStoreDecidesGivesBackWhatTheDecisionBrings() {
		AtomicReference<Runnable> decide = new AtomicReference<>();
		RateLimiter limiter = registry().store("remote", (name, settings, ticker) -> deferred(
				new InMemoryRateLimitStore(name, settings, ticker), decide))
			.limiter("api", RateLimiterSettings.builder()
				.store("remote")
				.window(10, Duration.ofSeconds(1))
				.maxConcurrent(2, Duration.ofMinutes(1))
				.build())
			.build()
			.get("api");
		Object before = state(limiter, "k");
		CompletableFuture<Permit> deciding = limiter.acquireAsync("k", 1, Duration.ZERO, this.scheduler);

		deciding.cancel(true);
		decide.get().run();
		assertThat(state(limiter, "k")).isNotEqualTo(before);
		this.scheduler.runAll();

		assertThat(state(limiter, "k")).isEqualTo(before);
		assertThat(this.decisions).isEmpty();
	}

	@Test
	void cancellingWhileAStepRunsIsSeenWhenItEnds() {
		AtomicReference<CompletableFuture<Permit>> call = new AtomicReference<>();
		AtomicInteger globalDecisions = new AtomicInteger();
		RateLimiterRegistry registry = registry()
			.store("cancelling", (name, settings, ticker) -> new ForwardingStore("cancelling",
					new InMemoryRateLimitStore(name, settings, ticker)) {

				@Override
				public Reservation reserve(String key, long cost, long maxWaitNanos) {
					if (globalDecisions.incrementAndGet() == 3) {
						// the retake after the wait: the caller gives up while the store decides
						call.get().cancel(true);
					}
					return super.reserve(key, cost, maxWaitNanos);
				}

			})
			.limiter("per-user", RateLimiterSettings.builder().window(1, Duration.ofSeconds(4)).build())
			.limiter("global", RateLimiterSettings.builder()
				.store("cancelling")
				.window(100, Duration.ofSeconds(1))
				.maxConcurrent(10, Duration.ofMinutes(1))
				.build())
			.build();
		RateLimiter perUser = registry.get("per-user");
		RateLimiter global = registry.get("global");
		List<RateLimitRequest> userX = List.of(new RateLimitRequest(perUser, "x", 1, Duration.ofSeconds(5)),
				new RateLimitRequest(global, "", 1, Duration.ofSeconds(5)));
		registry.acquireAllAsync(userX, this.scheduler).getNow(null).close();
		this.decisions.clear();
		call.set(registry.acquireAllAsync(userX, this.scheduler));
		this.scheduler.runNext();

		assertThat(globalDecisions).hasValue(3);
		assertThat(call.get()).isCancelled();
		// as if it had not asked: at 4 s both windows are free again, no permit is held
		assertThat(perUser.inspect("x").getRemaining()).isEqualTo(1);
		assertThat(global.inspect("").getQuotas().get(0).remaining()).isEqualTo(100);
		assertThat(global.inspect("").getInFlight()).isZero();
		assertThat(this.decisions).isEmpty();
	}

	@Test
	void anAdmissionThatWinsTheRaceWithACancellationClosesItsPermit() {
		AtomicReference<CompletableFuture<Permit>> call = new AtomicReference<>();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.listener((l, decision) -> {
				CompletableFuture<Permit> waiting = call.get();
				if (waiting != null && decision.isPermitted()) {
					// the caller cancels just as the call is admitted
					waiting.cancel(true);
				}
			})
			.limiter("api", RateLimiterSettings.builder()
				.window(1, Duration.ofSeconds(1))
				.maxConcurrent(1, Duration.ofMinutes(1))
				.build())
			.build()
			.get("api");
		limiter.acquire("k", 1, Duration.ZERO).close();
		call.set(limiter.acquireAsync("k", 1, Duration.ofSeconds(5), this.scheduler));

		this.scheduler.runAll();

		assertThat(call.get()).isCancelled();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		// admitted and told so: the call counts, its permit is back
		assertThat(limiter.inspect("k").getRemaining()).isZero();
	}

	@Test
	void maxConcurrentOfOneHoldsUntilThePermitIsClosedAsynchronously() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build());
		Permit first = limiter.acquireAsync("k", 1, Duration.ZERO, this.scheduler).getNow(null);

		RateLimitExceededException busy = (RateLimitExceededException) failure(
				limiter.acquireAsync("k", 1, Duration.ZERO, this.scheduler));
		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, Duration.ofSeconds(10), this.scheduler);

		assertThat(busy.getDecision().isConcurrencyLimited()).isTrue();
		assertThat(waiting).isNotDone();
		this.scheduler.runDue();
		assertThat(waiting).isNotDone();
		assertThat(first.closeAsync()).isCompleted();
		this.scheduler.runDue();
		assertThat(waiting).isCompleted();
		// closing again, either way, returns nothing more
		assertThat(first.closeAsync()).isCompleted();
		first.close();
		assertThat(limiter.inspect("k").getInFlight()).isOne();
		waiting.getNow(null).closeAsync();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		assertThat(this.scheduler.pending().size()).isZero();
	}

	@Test
	void closeAsyncReturnsThePermitsOfEveryLimiter() {
		RateLimiterRegistry registry = registry()
			.limiter("a", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.limiter("b", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build();
		Permit permit = registry.acquireAllAsync(List.of(new RateLimitRequest(registry.get("a"), "k", 1, Duration.ZERO),
				new RateLimitRequest(registry.get("b"), "k", 1, Duration.ZERO)), this.scheduler).getNow(null);
		assertThat(registry.get("a").inspect("k").getInFlight()).isOne();

		assertThat(permit.closeAsync()).isCompleted();

		assertThat(registry.get("a").inspect("k").getInFlight()).isZero();
		assertThat(registry.get("b").inspect("k").getInFlight()).isZero();
	}

}
