package dev.resilience.ratelimit.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.Ticker;
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
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/** The limiter's behaviour at its edges: waiting for permits, keys, inspection and serialization. */
class RateLimiterCoreTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void aReturnedPermitWakesOnlyTheWaitersOfItsKey() throws Exception {
		AtomicInteger asksForA = new AtomicInteger();
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.store("counting", (name, settings, ticker) -> counting(new InMemoryRateLimitStore(name, settings, ticker),
					"a", asksForA))
			.limiter("c", RateLimiterSettings.builder().store("counting").maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build();
		RateLimiter limiter = registry.get("c");
		Permit heldA = limiter.acquire("a", 1, Duration.ZERO);
		Permit heldB = limiter.acquire("b", 1, Duration.ZERO);
		CompletableFuture<Permit> waiter = CompletableFuture.supplyAsync(() -> limiter.acquire("a", 1, Duration.ofSeconds(20)));
		await().atMost(Duration.ofSeconds(10)).until(() -> asksForA.get() == 3);
		heldB.close();
		TimeUnit.MILLISECONDS.sleep(300);
		// A permit of "b" came back: the waiter for "a" slept on and asked nothing more.
		assertThat(asksForA.get()).isEqualTo(3);
		assertThat(waiter).isNotDone();
		heldA.close();
		waiter.get(10, TimeUnit.SECONDS).close();
		assertThat(asksForA.get()).isEqualTo(4);
		assertThat(limiter.inspect("a").getInFlight()).isZero();
	}

	@Test
	void aPermitReturnedJustBeforeTheWaitBeginsIsTakenAtOnce() throws Exception {
		AtomicReference<Permit> held = new AtomicReference<>();
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.store("returning", (name, settings, ticker) -> returning(
					new InMemoryRateLimitStore(name, settings, ticker), () -> held.get().close()))
			.limiter("c", RateLimiterSettings.builder().store("returning").maxConcurrent(2, Duration.ofMinutes(1)).build())
			.build();
		RateLimiter limiter = registry.get("c");
		held.set(limiter.acquire("k", 1, Duration.ZERO));
		Permit other = limiter.acquire("k", 1, Duration.ZERO);
		long start = System.nanoTime();
		// Rejected for want of a permit; one comes back before the wait begins.
		limiter.acquire("k", 1, Duration.ofSeconds(20)).close();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		other.close();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	@Test
	void acquireAllRejectsTheSameLimiterAndKeyTwiceAtOnce() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.limiter("c", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build();
		RateLimiter limiter = registry.get("c");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.acquireAll(List.of(new RateLimitRequest(limiter, "k", 1, Duration.ofSeconds(30)),
					new RateLimitRequest(limiter, "k", 1, Duration.ofSeconds(30)))))
			.withMessage("Rate limiter 'c' is asked twice for the same key (requests 0 and 1); a call would count "
					+ "twice and could wait for its own permit: combine them into one request");
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		registry.acquireAll(List.of(new RateLimitRequest(limiter, "k", 1, Duration.ZERO),
				new RateLimitRequest(limiter, "other", 1, Duration.ZERO))).close();
	}

	@Test
	void inspectOfAnExhaustedKeyIsNotPermitted() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "api",
				RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		assertThat(limiter.inspect("k").isPermitted()).isTrue();
		limiter.tryAcquire("k", 1);
		RateLimitDecision exhausted = limiter.inspect("k");
		assertThat(exhausted.isPermitted()).isFalse();
		assertThat(exhausted.getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
		assertThat(exhausted.getRemaining()).isZero();
		this.ticker.set(Duration.ofSeconds(1));
		assertThat(limiter.inspect("k").isPermitted()).isTrue();
	}

	@Test
	void inspectOfAKeyWithEveryPermitTakenIsNotPermitted() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "api",
				RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build());
		try (Permit permit = limiter.acquire("k", 1)) {
			RateLimitDecision busy = limiter.inspect("k");
			assertThat(busy.isPermitted()).isFalse();
			assertThat(busy.isConcurrencyLimited()).isTrue();
		}
		assertThat(limiter.inspect("k").isPermitted()).isTrue();
	}

	@Test
	void limitIsTheQuotaOfTheConstraintWithTheLeastRemaining() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "api", RateLimiterSettings.builder()
			.tokenBucket(5, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(10, Duration.ofSeconds(1))
			.build());
		RateLimitDecision decision = limiter.tryAcquire("k", 3);
		assertThat(decision.getRemaining()).isEqualTo(2);
		assertThat(decision.getLimit()).isEqualTo(5);
		RateLimiter permits = TestLimiters.onManualClock(this.ticker, "db", RateLimiterSettings.builder()
			.window(10, Duration.ofSeconds(1))
			.maxConcurrent(1, Duration.ofMinutes(1))
			.build());
		try (Permit permit = permits.acquire("k", 1)) {
			assertThat(permit.getDecisions()).singleElement().satisfies((held) -> {
				assertThat(held.getRemaining()).isZero();
				assertThat(held.getLimit()).isOne();
			});
		}
	}

	@Test
	void rejectionMessageNamesNoKeyButTheExceptionHoldsIt() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "api",
				RateLimiterSettings.builder().window(1, Duration.ofSeconds(2)).build());
		limiter.tryAcquire("sk_live_alice", 1);
		RateLimitExceededException rejected = catchThrowableOfType(RateLimitExceededException.class,
				() -> limiter.acquire("sk_live_alice", 1, Duration.ZERO));
		assertThat(rejected).hasMessage("Rate limiter 'api' rejected the call; retry after 2s");
		assertThat(rejected.getKey()).isEqualTo("sk_live_alice");
		assertThat(rejected.getDecision().getKey()).isEqualTo("sk_live_alice");
		assertThat(rejected.getDecision().toString()).doesNotContain("sk_live_alice");
	}

	@Test
	void aRegistryIncludingKeysNamesTheKeyUnlessItIsTheSharedBucket() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.includeKeys(true)
			.limiter("api", RateLimiterSettings.builder().window(1, Duration.ofSeconds(2)).build())
			.build();
		RateLimiter limiter = registry.get("api");
		limiter.tryAcquire("alice", 1);
		limiter.tryAcquire("", 1);
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("alice", 1, Duration.ZERO)))
			.hasMessage("Rate limiter 'api' rejected the call for key 'alice'; retry after 2s");
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("", 1, Duration.ZERO)))
			.hasMessage("Rate limiter 'api' rejected the call; retry after 2s");
		RateLimiterRegistry without = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.includeKeys(true)
			.includeKeys(false)
			.limiter("api", RateLimiterSettings.builder().window(1, Duration.ofSeconds(2)).build())
			.build();
		without.get("api").tryAcquire("alice", 1);
		assertThat(catchThrowableOfType(RateLimitExceededException.class,
				() -> without.get("api").acquire("alice", 1, Duration.ZERO)))
			.hasMessage("Rate limiter 'api' rejected the call; retry after 2s");
	}

	@Test
	void rejectionsCarryNoStackTraceByDefault() {
		RateLimiterRegistry registry = oneCallLimiters(StoreRateLimiterRegistry.builder());
		assertThat(secondCall(registry, "fast").getStackTrace()).isEmpty();
		assertThat(secondCall(registry, "held").getStackTrace()).isEmpty();
	}

	@Test
	void aRegistryAskedForStackTracesRecordsTheRejectedCallsStack() {
		RateLimiterRegistry registry = oneCallLimiters(StoreRateLimiterRegistry.builder().stackTraces(true));
		assertThat(secondCall(registry, "fast").getStackTrace()).isNotEmpty();
		assertThat(secondCall(registry, "held").getStackTrace()).isNotEmpty();
		RateLimiterRegistry without = oneCallLimiters(StoreRateLimiterRegistry.builder().stackTraces(true).stackTraces(false));
		assertThat(secondCall(without, "fast").getStackTrace()).isEmpty();
	}

	@Test
	void aRejectionMadeWithTheDecisionAloneHasAStackTrace() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "api",
				RateLimiterSettings.builder().window(1, Duration.ofSeconds(2)).build());
		limiter.tryAcquire("alice", 1);
		RateLimitDecision decision = limiter.tryAcquire("alice", 1);
		assertThat(new RateLimitExceededException(decision).getStackTrace()).isNotEmpty();
		assertThat(new RateLimitExceededException(decision, false).getStackTrace()).isEmpty();
		assertThat(new RateLimitExceededException(decision, false))
			.hasMessage("Rate limiter 'api' rejected the call; retry after 2s")
			.hasToString(RateLimitExceededException.class.getName()
					+ ": Rate limiter 'api' rejected the call; retry after 2s");
		assertThat(new RateLimitExceededException(decision, false, true))
			.hasMessage("Rate limiter 'api' rejected the call for key 'alice'; retry after 2s");
	}

	/** Two limiters admitting one call each: one decided by its own fast path, one through a held permit. */
	private RateLimiterRegistry oneCallLimiters(StoreRateLimiterRegistry.Builder builder) {
		return builder.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.limiter("fast", RateLimiterSettings.builder().window(1, Duration.ofSeconds(2)).build())
			.limiter("held", RateLimiterSettings.builder()
				.window(1, Duration.ofSeconds(2))
				.maxConcurrent(5, Duration.ofMinutes(1))
				.build())
			.build();
	}

	private static RateLimitExceededException secondCall(RateLimiterRegistry registry, String name) {
		registry.get(name).acquire("alice", 1, Duration.ZERO).close();
		return catchThrowableOfType(RateLimitExceededException.class,
				() -> registry.get(name).acquire("alice", 1, Duration.ZERO));
	}

	@Test
	void intervalBucketsOfKeysFirstUsedAtDifferentTimesRefillAtDifferentTimes() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "api", RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofMillis(100), RefillStrategy.INTERVAL)
			.build());
		assertThat(limiter.tryAcquire("early", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(30));
		assertThat(limiter.tryAcquire("late", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(100));
		assertThat(limiter.tryAcquire("early", 1).isPermitted()).isTrue();
		RateLimitDecision late = limiter.tryAcquire("late", 1);
		assertThat(late.isPermitted()).isFalse();
		assertThat(late.getRetryAfter()).isEqualTo(Duration.ofMillis(30));
		this.ticker.set(Duration.ofMillis(130));
		assertThat(limiter.tryAcquire("late", 1).isPermitted()).isTrue();
	}

	@Test
	void theSharedBucketsIntervalsStartAtItsFirstUseToo() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "api", RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofMillis(100), RefillStrategy.INTERVAL)
			.build());
		this.ticker.set(Duration.ofMillis(30));
		assertThat(limiter.tryAcquire("", 1).isPermitted()).isTrue();
		this.ticker.set(Duration.ofMillis(100));
		assertThat(limiter.tryAcquire("", 1).getRetryAfter()).isEqualTo(Duration.ofMillis(30));
		this.ticker.set(Duration.ofMillis(130));
		assertThat(limiter.tryAcquire("", 1).isPermitted()).isTrue();
	}

	@Test
	void rejectionSurvivesSerialization() throws Exception {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "api",
				RateLimiterSettings.builder().window(1, Duration.ofSeconds(2)).build());
		limiter.tryAcquire("alice", 1);
		RateLimitExceededException original = new RateLimitExceededException(limiter.tryAcquire("alice", 1));
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
			out.writeObject(original);
		}
		RateLimitExceededException copy;
		try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
			copy = (RateLimitExceededException) in.readObject();
		}
		assertThat(copy.getLimiterName()).isEqualTo("api");
		assertThat(copy.getKey()).isEqualTo("alice");
		assertThat(copy.getRetryAfter()).isEqualTo(Duration.ofSeconds(2));
		assertThat(copy.getMessage()).isEqualTo(original.getMessage());
		assertThat(copy.getDecision().isPermitted()).isFalse();
		assertThat(copy.getDecision().getRetryAfter()).isEqualTo(Duration.ofSeconds(2));
		assertThat(copy.getDecision().getLimiterName()).isEqualTo("api");
	}

	@Test
	void idleKeysAreForgottenWhileTheLimiterIsIdle() {
		// Real time: nobody calls the limiter again, yet its idle key goes (Caffeine's scheduler).
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api",
				RateLimiterSettings.builder().window(1, Duration.ofMillis(10)).build(), Ticker.system());
		WeakReference<KeyState> key = new WeakReference<>(store.state("idle"));
		assertThat(store.tryAcquire("idle", 1).isPermitted()).isTrue();
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
			System.gc();
			return key.get() == null;
		});
	}

	/** Runs an action just before each wait for a permit. */
	private static RateLimitStore returning(RateLimitStore delegate, Runnable beforeWait) {
		return new ForwardingStore("returning", delegate) {

			@Override
			public void awaitPermit(String key, long nanos) throws InterruptedException {
				beforeWait.run();
				super.awaitPermit(key, nanos);
			}

		};
	}

	/** Counts the decisions asked of one key, to see who wakes up. */
	private static RateLimitStore counting(RateLimitStore delegate, String countedKey, AtomicInteger asks) {
		return new ForwardingStore("counting", delegate) {

			@Override
			public Reservation reserve(String key, long cost, long maxWaitNanos) {
				if (key.equals(countedKey)) {
					asks.incrementAndGet();
				}
				return super.reserve(key, cost, maxWaitNanos);
			}

		};
	}

}
