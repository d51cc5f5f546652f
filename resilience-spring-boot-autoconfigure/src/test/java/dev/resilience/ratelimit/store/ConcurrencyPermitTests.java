package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitDecision.Quota;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Concurrency permits: returned on close, reclaimed after the lease timeout, waited for across threads. */
class ConcurrencyPermitTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void permitIsReturnedOnClose() {
		RateLimiter limiter = limiter(2, Duration.ofSeconds(10));
		Permit first = limiter.acquire("k", 1, Duration.ZERO);
		limiter.acquire("k", 1, Duration.ZERO);
		RateLimitExceededException ex = catchThrowableOfType(RateLimitExceededException.class,
				() -> limiter.acquire("k", 1, Duration.ZERO));
		assertThat(ex.getDecision().getInFlight()).isEqualTo(2);
		assertThat(ex.getDecision().getMaxConcurrent()).isEqualTo(2);
		assertThat(ex.getDecision().getRemaining()).isZero();
		// no permit returned yet, and the oldest was taken just now: the shortest Retry-After
		assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofMillis(1));
		first.close();
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(1);
		limiter.acquire("k", 1, Duration.ZERO);
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
	}

	@Test
	void retryAfterForWantOfAPermitIsTheTypicalHoldTimeLeftNotTheLeaseTimeout() {
		RateLimiter limiter = limiter(1, Duration.ofMinutes(1));
		for (int i = 0; i < 3; i++) {
			Permit permit = limiter.acquire("k", 1, Duration.ZERO);
			this.ticker.advance(Duration.ofMillis(200));
			permit.close();
		}
		limiter.acquire("k", 1, Duration.ZERO);
		this.ticker.advance(Duration.ofMillis(50));
		RateLimitExceededException busy = catchThrowableOfType(RateLimitExceededException.class,
				() -> limiter.acquire("k", 1, Duration.ZERO));
		assertThat(busy.getRetryAfter()).isEqualTo(Duration.ofMillis(150));
		assertThat(busy.getDecision().isConcurrencyLimited()).isTrue();
		// a holder past the typical time is expected back within another typical hold
		this.ticker.advance(Duration.ofMillis(250));
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("k", 1, Duration.ZERO))
			.getRetryAfter()).isEqualTo(Duration.ofMillis(200));
	}

	@Test
	void callsGivenBackDoNotCountAsHoldTimes() {
		RateLimiter limiter = limiter(1, Duration.ofMinutes(1));
		for (int i = 0; i < 3; i++) {
			Permit permit = limiter.acquire("k", 1, Duration.ZERO);
			this.ticker.advance(Duration.ofMillis(200));
			permit.close();
		}
		for (int i = 0; i < 40; i++) {
			limiter.reserve("k", 1, Duration.ZERO).cancel();
		}
		limiter.acquire("k", 1, Duration.ZERO);
		this.ticker.advance(Duration.ofMillis(50));
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("k", 1, Duration.ZERO))
			.getRetryAfter()).isEqualTo(Duration.ofMillis(150));
	}

	@Test
	void typicalHoldTimeWeighsEachReturnedPermitByAnEighth() {
		RateLimiter limiter = limiter(1, Duration.ofMinutes(1));
		holdFor(limiter, Duration.ofMillis(200));
		holdFor(limiter, Duration.ofMillis(600));
		limiter.acquire("k", 1, Duration.ZERO);
		this.ticker.advance(Duration.ofMillis(50));
		// typically held 200 ms, then 200 + (600 - 200) / 8 = 250 ms; the holder has had it for 50 ms
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("k", 1, Duration.ZERO))
			.getRetryAfter()).isEqualTo(Duration.ofMillis(200));
	}

	@Test
	void retryAfterForWantOfAPermitBeforeAnyReturnIsHowLongTheOldestHeldItSoFar() {
		RateLimiter limiter = limiter(1, Duration.ofSeconds(30));
		limiter.acquire("k", 1, Duration.ZERO);
		this.ticker.advance(Duration.ofSeconds(2));
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("k", 1, Duration.ZERO))
			.getRetryAfter()).isEqualTo(Duration.ofSeconds(2));
		this.ticker.advance(Duration.ofSeconds(27));
		// never later than the lease expires
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("k", 1, Duration.ZERO))
			.getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void closingTwiceReturnsOnePermit() {
		RateLimiter limiter = limiter(2, Duration.ofSeconds(10));
		Permit first = limiter.acquire("k", 1, Duration.ZERO);
		limiter.acquire("k", 1, Duration.ZERO);
		first.close();
		first.close();
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(1);
		limiter.acquire("k", 1, Duration.ZERO);
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> limiter.acquire("k", 1, Duration.ZERO));
	}

	@Test
	void leaseExpiryReclaimsPermitAfterLeaseTimeout() {
		RateLimiter limiter = limiter(2, Duration.ofSeconds(10));
		limiter.acquire("k", 1, Duration.ZERO);
		limiter.acquire("k", 1, Duration.ZERO);
		this.ticker.set(Duration.ofSeconds(10).minusNanos(1));
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("k", 1, Duration.ZERO))
			.getRetryAfter()).isEqualTo(Duration.ofNanos(1));
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
		this.ticker.set(Duration.ofSeconds(10));
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		limiter.acquire("k", 1, Duration.ZERO);
		limiter.acquire("k", 1, Duration.ZERO);
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
	}

	@Test
	void closingAfterLeaseExpiryLeavesOtherPermitsAlone() {
		RateLimiter limiter = limiter(1, Duration.ofSeconds(1));
		Permit expired = limiter.acquire("k", 1, Duration.ZERO);
		this.ticker.set(Duration.ofSeconds(1));
		Permit current = limiter.acquire("k", 1, Duration.ZERO);
		expired.close();
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(1);
		assertThat(catchThrowableOfType(RateLimitExceededException.class, () -> limiter.acquire("k", 1, Duration.ZERO))
			.getRetryAfter()).isEqualTo(Duration.ofMillis(1));
		current.close();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	@Test
	void closingPermitReturnsConcurrencyButNotWindowSlot() {
		RateLimiter limiter = limiter(RateLimiterSettings.builder()
			.window(5, Duration.ofSeconds(1))
			.maxConcurrent(2, Duration.ofSeconds(10))
			.build());
		limiter.acquire("k", 1, Duration.ZERO).close();
		RateLimitDecision state = limiter.inspect("k");
		assertThat(state.getInFlight()).isZero();
		assertThat(state.getQuotas()).extracting(Quota::remaining).containsExactly(4L);
	}

	@Test
	void tryAcquireOnLimiterWithMaxConcurrentThrowsIllegalState() {
		RateLimiter limiter = limiter(2, Duration.ofSeconds(10));
		assertThatIllegalStateException().isThrownBy(() -> limiter.tryAcquire("k", 1))
			.withMessageContaining("'db'")
			.withMessageContaining("max-concurrent");
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	@Test
	void waitingAcquireProceedsWhenAnotherThreadClosesItsPermit() throws Exception {
		RateLimiter limiter = realTimeLimiter(1);
		Permit held = limiter.acquire("k", 1, Duration.ZERO);
		CompletableFuture<Permit> waiting = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try {
				waiting.complete(limiter.acquire("k", 1, Duration.ofSeconds(10)));
			}
			catch (Throwable ex) {
				waiting.completeExceptionally(ex);
			}
		}, "permit-waiter");
		waiter.start();
		try {
			awaitTimedWaiting(waiter);
			assertThat(waiting).isNotDone();
			held.close();
			try (Permit permit = waiting.get(5, TimeUnit.SECONDS)) {
				assertThat(permit.getDecisions()).singleElement()
					.satisfies((decision) -> assertThat(decision.getInFlight()).isEqualTo(1));
				assertThat(limiter.inspect("k").getInFlight()).isEqualTo(1);
			}
			assertThat(limiter.inspect("k").getInFlight()).isZero();
		}
		finally {
			waiter.interrupt();
			waiter.join(5_000);
		}
	}

	@Test
	void callInterruptedWhileWaitingForAPermitGivesUpAndKeepsItsInterruptFlag() {
		RateLimiter limiter = limiter(1, Duration.ofMinutes(1));
		limiter.acquire("k", 1, Duration.ZERO);
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(CancellationException.class)
				.isThrownBy(() -> limiter.acquire("k", 1, Duration.ofSeconds(10)))
				.withMessage("Interrupted while waiting for rate limiter 'db'; nothing was consumed");
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(limiter.inspect("k").getInFlight()).isOne();
	}

	@Test
	void waitingAcquireProceedsWhenTheOldestLeaseExpires() {
		// real time, as a reclaimed permit is waited for on a condition; the store has run for an hour
		AtomicLong offset = new AtomicLong();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(() -> System.nanoTime() + offset.get())
			.limiter("db", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMillis(20)).build())
			.build()
			.get("db");
		offset.set(Duration.ofHours(1).toNanos());
		limiter.acquire("k", 1, Duration.ZERO);
		// the holder never returns its permit: the waiter gets it when the lease expires, not at max-wait
		try (Permit permit = limiter.acquire("k", 1, Duration.ofSeconds(30))) {
			assertThat(permit.getWaited()).isLessThan(Duration.ofSeconds(10));
			assertThat(limiter.inspect("k").getInFlight()).isOne();
		}
	}

	@Test
	void waitingAcquireIsRejectedWhenMaxWaitPassesWithoutAReturnedPermit() {
		RateLimiter limiter = realTimeLimiter(1);
		limiter.acquire("k", 1, Duration.ZERO);
		RateLimitExceededException ex = catchThrowableOfType(RateLimitExceededException.class,
				() -> limiter.acquire("k", 1, Duration.ofMillis(50)));
		assertThat(ex.getDecision().getInFlight()).isEqualTo(1);
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(1);
	}

	private static void awaitTimedWaiting(Thread thread) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (thread.getState() != Thread.State.TIMED_WAITING) {
			assertThat(System.nanoTime()).as("%s waiting for a permit", thread.getName()).isLessThan(deadline);
			Thread.sleep(1);
		}
	}

	private void holdFor(RateLimiter limiter, Duration duration) {
		try (Permit permit = limiter.acquire("k", 1, Duration.ZERO)) {
			this.ticker.advance(duration);
		}
	}

	private RateLimiter limiter(int maxConcurrent, Duration leaseTimeout) {
		return limiter(RateLimiterSettings.builder().maxConcurrent(maxConcurrent, leaseTimeout).build());
	}

	private RateLimiter limiter(RateLimiterSettings settings) {
		return TestLimiters.onManualClock(this.ticker, "db", settings);
	}

	/** A returned permit wakes its waiter through a real condition, so these use the system clock. */
	private static RateLimiter realTimeLimiter(int maxConcurrent) {
		return StoreRateLimiterRegistry.builder()
			.limiter("db", RateLimiterSettings.builder().maxConcurrent(maxConcurrent, Duration.ofMinutes(1)).build())
			.build()
			.get("db");
	}

}
