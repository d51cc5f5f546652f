package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** Several limiters on one call with a moving clock, waits imposed by one limiter, and failures along the way. */
class AcquireAllTests {

	private static final RateLimiterSettings TEN_PER_SECOND_BUCKET = RateLimiterSettings.builder()
		.tokenBucket(10, 10, Duration.ofSeconds(1), RefillStrategy.GREEDY)
		.build();

	private static final RateLimiterSettings HUNDRED_PER_SECOND = RateLimiterSettings.builder()
		.window(100, Duration.ofSeconds(1))
		.build();

	@Test
	void acquireAllEndsWhenTheClockMovesOnEveryRead() {
		AtomicLong clock = new AtomicLong();
		Ticker ticker = clock::incrementAndGet;
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(ticker)
			.sleeper((nanos) -> clock.addAndGet(Math.max(0, nanos)))
			.limiter("a", HUNDRED_PER_SECOND)
			.limiter("b", HUNDRED_PER_SECOND)
			.build();
		assertTimeoutPreemptively(Duration.ofSeconds(5), () -> registry.acquireAll(both(registry, Duration.ZERO)).close());
		assertThat(registry.get("a").inspect("k").getRemaining()).isEqualTo(99);
		assertThat(registry.get("b").inspect("k").getRemaining()).isEqualTo(99);
	}

	@Test
	void acquireAllEndsOnTheSystemClock() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.limiter("a", HUNDRED_PER_SECOND)
			.limiter("b", HUNDRED_PER_SECOND)
			.build();
		assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
			for (int i = 0; i < 100; i++) {
				registry.acquireAll(both(registry, Duration.ofMillis(10))).close();
			}
		});
		assertThat(registry.get("a").inspect("k").getRemaining()).isZero();
	}

	@Test
	void aWaitImposedByOneLimiterDoesNotBlockAnotherLimiterForOthers() {
		ManualTicker ticker = new ManualTicker();
		AtomicReference<RateLimiterRegistry> registryRef = new AtomicReference<>();
		List<RateLimitDecision> othersDuringTheWait = new ArrayList<>();
		Sleeper sleeper = (nanos) -> {
			ticker.advance(Duration.ofMillis(1));
			othersDuringTheWait.add(registryRef.get().get("global").tryAcquire("", 1));
			ticker.advanceNanos(nanos - Duration.ofMillis(1).toNanos());
		};
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(ticker)
			.sleeper(sleeper)
			.limiter("per-user", RateLimiterSettings.builder().window(1, Duration.ofSeconds(4)).build())
			.limiter("global", RateLimiterSettings.builder()
				.tokenBucket(100, 100, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.build())
			.build();
		registryRef.set(registry);
		List<RateLimitRequest> userX = List.of(
				new RateLimitRequest(registry.get("per-user"), "x", 1, Duration.ofSeconds(5)),
				new RateLimitRequest(registry.get("global"), "", 1, Duration.ofSeconds(5)));
		registry.acquireAll(userX).close();

		Permit waited = registry.acquireAll(userX);

		assertThat(waited.getWaited()).isEqualTo(Duration.ofSeconds(4));
		assertThat(othersDuringTheWait).hasSize(1);
		assertThat(othersDuringTheWait.get(0).isPermitted()).isTrue();
		assertThat(othersDuringTheWait.get(0).getRemaining()).isEqualTo(98);
	}

	@Test
	void aCallWhoseShareOfAnotherLimiterWasTakenDuringItsWaitAsksAgainWithinItsMaxWait() {
		ManualTicker ticker = new ManualTicker();
		AtomicReference<RateLimiterRegistry> registryRef = new AtomicReference<>();
		List<Duration> sleeps = new ArrayList<>();
		List<RateLimitDecision> decisions = new ArrayList<>();
		Sleeper sleeper = (nanos) -> {
			sleeps.add(Duration.ofNanos(nanos));
			if (sleeps.size() == 1) {
				// half a second before the call proceeds, somebody else takes the global slot
				ticker.advanceNanos(nanos - Duration.ofMillis(500).toNanos());
				registryRef.get().get("global").tryAcquire("", 1);
				ticker.advance(Duration.ofMillis(500));
			}
			else {
				ticker.advanceNanos(nanos);
			}
		};
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(ticker)
			.sleeper(sleeper)
			.listener((limiter, decision) -> decisions.add(decision))
			.limiter("per-user", RateLimiterSettings.builder().window(1, Duration.ofSeconds(4)).build())
			.limiter("global", RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.build();
		registryRef.set(registry);
		List<RateLimitRequest> userX = List.of(
				new RateLimitRequest(registry.get("per-user"), "x", 1, Duration.ofSeconds(10)),
				new RateLimitRequest(registry.get("global"), "", 1, Duration.ofSeconds(10)));
		registry.acquireAll(userX).close();
		decisions.clear();

		// per-user admits at 4 s; at 4 s the global slot taken at 3.5 s is only free at 4.5 s
		Permit permit = registry.acquireAll(userX);

		assertThat(permit.getWaited()).isEqualTo(Duration.ofMillis(4500));
		assertThat(sleeps).containsExactly(Duration.ofSeconds(4), Duration.ofMillis(500));
		assertThat(decisions).extracting(RateLimitDecision::getLimiterName, RateLimitDecision::getWait)
			.containsExactly(tuple("global", Duration.ZERO), tuple("per-user", Duration.ofMillis(4500)),
					tuple("global", Duration.ofMillis(4500)));
		// each limiter counts the call once, at 4.5 s
		assertThat(registry.get("per-user").tryAcquire("x", 1).getRetryAfter()).isEqualTo(Duration.ofSeconds(4));
		assertThat(registry.get("global").tryAcquire("", 1).getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void aCallInterruptedWhileWaitingForItsSlotGivesTheSlotBackAndKeepsItsInterruptFlag() {
		ManualTicker ticker = new ManualTicker();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(ticker)
			.sleeper((nanos) -> {
				throw new InterruptedException();
			})
			.limiter("api", RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.build()
			.get("api");
		limiter.acquire("k", 1, Duration.ofSeconds(5)).close();
		try {
			assertThatExceptionOfType(CancellationException.class)
				.isThrownBy(() -> limiter.acquire("k", 1, Duration.ofSeconds(5)))
				.withMessage("Interrupted while waiting for rate limiter 'api'; nothing was consumed");
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		// the slot at 1 s is free for the next caller
		assertThat(limiter.reserve("k", 1, Duration.ofSeconds(5)).getDecision().getWait()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void givingTokensBackAfterTheBucketRefilledNeverAdmitsMoreThanItsCapacity() {
		ManualTicker ticker = new ManualTicker();
		RateLimiter bucket = TestLimiters.onManualClock(ticker, "b", TEN_PER_SECOND_BUCKET);
		Reservation all = bucket.reserve("k", 10, Duration.ZERO);
		ticker.advance(Duration.ofSeconds(1));
		assertThat(bucket.tryAcquire("k", 1).getRemaining()).isEqualTo(9);

		all.cancel();

		// Had the first call not happened, the bucket would have been full all along: 9 now.
		assertThat(bucket.inspect("k").getRemaining()).isEqualTo(9);
		assertThat(bucket.tryAcquire("k", 10).isPermitted()).isFalse();
	}

	@Test
	void givingBackAReservationWhileALaterOneHoldsTheBucketNeverAllowsABurst() {
		ManualTicker ticker = new ManualTicker();
		RateLimiter bucket = TestLimiters.onManualClock(ticker, "b", RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		assertThat(bucket.tryAcquire("k", 1).isPermitted()).isTrue();
		Reservation atOneSecond = bucket.reserve("k", 1, Duration.ofSeconds(10));
		Reservation atTwoSeconds = bucket.reserve("k", 1, Duration.ofSeconds(10));
		assertThat(atTwoSeconds.getDecision().getWait()).isEqualTo(Duration.ofSeconds(2));

		atOneSecond.cancel();

		// A capacity of 1 admits one call per instant: the next slot is after the one at 2 s.
		assertThat(bucket.reserve("k", 1, Duration.ofSeconds(10)).getDecision().getWait())
			.isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void givingTokensBackAtOnceRestoresTheBucketExactly() {
		ManualTicker ticker = new ManualTicker();
		RateLimiter bucket = TestLimiters.onManualClock(ticker, "b", TEN_PER_SECOND_BUCKET);
		Reservation five = bucket.reserve("k", 5, Duration.ZERO);
		assertThat(bucket.tryAcquire("k", 1).getRemaining()).isEqualTo(4);

		five.cancel();

		assertThat(bucket.inspect("k").getRemaining()).isEqualTo(9);
	}

	@Test
	void aCallThatLacksAPermitAndASlotInTimeIsRejectedWithoutWaiting() {
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.limiter("c", RateLimiterSettings.builder()
				.window(1, Duration.ofSeconds(60))
				.maxConcurrent(1, Duration.ofMinutes(1))
				.build())
			.build()
			.get("c");
		try (Permit held = limiter.acquire("k", 1, Duration.ZERO)) {
			// Waiting for the permit would be in vain: the window only admits in 60 s.
			assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatExceptionOfType(
					RateLimitExceededException.class).isThrownBy(() -> limiter.acquire("k", 1, Duration.ofSeconds(30))));
		}
	}

	@Test
	void waitingForAPermitEndsAtMaxWaitEvenWhenTheTickerStandsStill() {
		ManualTicker ticker = new ManualTicker();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(ticker)
			.sleeper(ticker.sleeper())
			.limiter("c", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build()
			.get("c");
		try (Permit held = limiter.acquire("k", 1, Duration.ZERO)) {
			assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatExceptionOfType(
					RateLimitExceededException.class).isThrownBy(() -> limiter.acquire("k", 1, Duration.ofMillis(100))));
		}
	}

	@Test
	void aCallThatWaitedForAPermitIsReportedAsWaited() throws Exception {
		List<RateLimitDecision> decisions = new ArrayList<>();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.listener((l, decision) -> decisions.add(decision))
			.limiter("c", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build()
			.get("c");
		Permit held = limiter.acquire("k", 1, Duration.ZERO);
		Thread releaser = new Thread(() -> {
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			held.close();
		});
		releaser.start();
		try (Permit permit = limiter.acquire("k", 1, Duration.ofSeconds(10))) {
			assertThat(permit.getWaited()).isPositive();
			assertThat(decisions.get(decisions.size() - 1).getWait()).isEqualTo(permit.getWaited());
		}
		releaser.join();
	}

	@Test
	void aFailingListenerNeitherFailsTheCallNorLeaksItsPermit() {
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.listener((l, decision) -> {
				throw new IllegalStateException("listener bug");
			})
			.limiter("c", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build()
			.get("c");
		try (Permit permit = limiter.acquire("k", 1, Duration.ZERO)) {
			assertThat(limiter.inspect("k").getInFlight()).isEqualTo(1);
		}
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	@Test
	void aFailingListenerIsLoggedAsAWarning() {
		IllegalStateException bug = new IllegalStateException("listener bug");
		RateLimitListener failing = (l, decision) -> {
			throw bug;
		};
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(new ManualTicker())
			.listener(failing)
			.limiter("api", HUNDRED_PER_SECOND)
			.build()
			.get("api");
		List<LogRecord> records = new CopyOnWriteArrayList<>();
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord record) {
				records.add(record);
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		Logger logger = Logger.getLogger(RateLimitAcquirer.class.getName());
		logger.addHandler(handler);
		try {
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		finally {
			logger.removeHandler(handler);
		}
		assertThat(records).singleElement().satisfies((record) -> {
			assertThat(record.getLevel()).isEqualTo(Level.WARNING);
			assertThat(record.getMessage()).isEqualTo("Rate limit listener " + failing + " failed");
			assertThat(record.getThrown()).isSameAs(bug);
		});
	}

	@Test
	void aLimiterThatThrowsGivesBackWhatTheOthersTook() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.store("broken", (name, settings, ticker) -> new FailingStore())
			.limiter("a", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.limiter("failing", RateLimiterSettings.builder().store("broken").window(100, Duration.ofSeconds(1)).build())
			.build();
		RateLimiter a = registry.get("a");
		RateLimiter failing = registry.get("failing");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> registry.acquireAll(
				List.of(new RateLimitRequest(a, "k", 1, Duration.ZERO), new RateLimitRequest(failing, "k", 1, Duration.ZERO))))
			.withMessage("store down");
		assertThat(a.inspect("k").getInFlight()).isZero();
	}

	private static List<RateLimitRequest> both(RateLimiterRegistry registry, Duration maxWait) {
		return List.of(new RateLimitRequest(registry.get("a"), "k", 1, maxWait),
				new RateLimitRequest(registry.get("b"), "k", 1, maxWait));
	}

	/** A store that fails on every decision. */
	private static final class FailingStore implements RateLimitStore {

		@Override
		public String getType() {
			return "broken";
		}

		@Override
		public Reservation reserve(String key, long cost, long maxWaitNanos) {
			throw new IllegalStateException("store down");
		}

		@Override
		public RateLimitDecision tryAcquire(String key, long cost) {
			throw new IllegalStateException("store down");
		}

		@Override
		public void awaitPermit(String key, long nanos) {
			throw new IllegalStateException("store down");
		}

		@Override
		public RateLimitDecision inspect(String key) {
			throw new IllegalStateException("store down");
		}

		@Override
		public void reset(String key) {
		}

	}

}
