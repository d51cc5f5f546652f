package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Eight threads on one key: exactly the maximum admitted, never more permits in flight than allowed. */
class RateLimiterStressTests {

	private static final int THREADS = 8;

	/** For the tests of sixteen threads; the others use {@link #THREADS}. */
	private static final int MANY_THREADS = 16;

	private final ManualTicker ticker = new ManualTicker();

	@RegisterExtension
	final StressThreads threads = new StressThreads(MANY_THREADS);

	/**
	 * The clock steps 1 ms at a time, moved by the barrier between steps; at each step all threads
	 * call until rejected, so every step admits exactly what the constraints allow then. The
	 * window (100 per 1s) caps the bucket's burst of 150 at 0s and 1s; from then on the bucket's
	 * 50 per second binds. Over 5s that is the bucket's capacity plus 5s of refill: 400.
	 */
	@Test
	void eightThreadsAdmitExactlyTheMaximumOfWindowAndBucket() throws Exception {
		long capacity = 150;
		long refillPerSecond = 50;
		int lastMillis = 5_000;
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.limiter("api", RateLimiterSettings.builder()
				.tokenBucket(capacity, refillPerSecond, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.window(100, Duration.ofSeconds(1))
				.build())
			.build()
			.get("api");
		AtomicIntegerArray admittedAt = admittedPerMillisecond(limiter, "k", lastMillis);
		int[] expected = new int[lastMillis + 1];
		expected[0] = 100;
		expected[1_000] = 100;
		expected[2_000] = 50;
		for (int millis = 2_020; millis <= lastMillis; millis += 20) {
			expected[millis] = 1;
		}
		int[] actual = new int[lastMillis + 1];
		long total = 0;
		for (int millis = 0; millis <= lastMillis; millis++) {
			actual[millis] = admittedAt.get(millis);
			total += actual[millis];
		}
		assertThat(actual).isEqualTo(expected);
		assertThat(total).isEqualTo(capacity + refillPerSecond * lastMillis / 1_000);
	}

	/**
	 * A bucket alone is decided without a lock: eight threads on the shared key and the clock
	 * stepping 1 ms at a time admit exactly the capacity, then exactly one token every 20 ms.
	 */
	@Test
	void eightThreadsOnALockFreeBucketAdmitExactlyWhatItHolds() throws Exception {
		int lastMillis = 3_000;
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.limiter("api", RateLimiterSettings.builder()
				.tokenBucket(500, 50, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.build())
			.build()
			.get("api");
		AtomicIntegerArray admittedAt = admittedPerMillisecond(limiter, "", lastMillis);
		int[] expected = new int[lastMillis + 1];
		expected[0] = 500;
		for (int millis = 20; millis <= lastMillis; millis += 20) {
			expected[millis] = 1;
		}
		int[] actual = new int[lastMillis + 1];
		for (int millis = 0; millis <= lastMillis; millis++) {
			actual[millis] = admittedAt.get(millis);
		}
		assertThat(actual).isEqualTo(expected);
	}

	/**
	 * Sixteen threads take a token of a shared lock-free bucket of 100, then ask a per-user window
	 * of 30 for each of four users; the window's rejections give the token back while other
	 * threads take theirs. Exactly 100 calls are admitted and the bucket ends empty: no token is
	 * lost or made up.
	 */
	@Test
	void sixteenThreadsGiveLockFreeTokensBackExactly() throws Exception {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.limiter("shared", RateLimiterSettings.builder()
				.tokenBucket(100, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
				.build())
			.limiter("user", RateLimiterSettings.builder().window(30, Duration.ofSeconds(1)).build())
			.build();
		RateLimiter shared = registry.get("shared");
		RateLimiter user = registry.get("user");
		AtomicIntegerArray admittedPerUser = new AtomicIntegerArray(4);
		AtomicInteger admittedInAll = new AtomicInteger();
		AtomicBoolean done = new AtomicBoolean();
		List<Future<?>> workers = new ArrayList<>();
		CyclicBarrier start = new CyclicBarrier(MANY_THREADS);
		for (int i = 0; i < MANY_THREADS; i++) {
			int userIndex = i % 4;
			workers.add(this.threads.submit(() -> {
				start.await();
				// A token held for a moment by a call the user window then rejects comes back:
				// keep asking until all 100 are admitted (a lost token would stop it at 99).
				while (!done.get()) {
					try (Permit permit = registry.acquireAll(
							List.of(new RateLimitRequest(shared, "", 1, Duration.ZERO),
									new RateLimitRequest(user, "user-" + userIndex, 1, Duration.ZERO)))) {
						admittedPerUser.incrementAndGet(userIndex);
						admittedInAll.incrementAndGet();
					}
					catch (RateLimitExceededException ex) {
						// rejected: counted nowhere
					}
				}
				return null;
			}));
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> admittedInAll.get() >= 100);
		done.set(true);
		// every call in flight ends before the workers do, so the counts below are final
		for (Future<?> worker : workers) {
			worker.get(30, TimeUnit.SECONDS);
		}
		int total = 0;
		for (int i = 0; i < 4; i++) {
			int admitted = admittedPerUser.get(i);
			assertThat(admitted).isLessThanOrEqualTo(30);
			assertThat(user.inspect("user-" + i).getRemaining()).isEqualTo(30L - admitted);
			total += admitted;
		}
		assertThat(total).isEqualTo(100);
		assertThat(shared.inspect("").getRemaining()).isZero();
	}

	@Test
	void eightThreadsNeverHoldMoreThanMaxConcurrentPermits() throws Exception {
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.limiter("db", RateLimiterSettings.builder().maxConcurrent(3, Duration.ofMinutes(1)).build())
			.build()
			.get("db");
		int callsPerThread = 300;
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger maxInFlight = new AtomicInteger();
		AtomicInteger completed = new AtomicInteger();
		this.threads.runEach(THREADS, (thread) -> {
			boolean waits = thread % 2 == 0;
			for (int call = 0; call < callsPerThread; call++) {
				try (Permit permit = acquire(limiter, waits)) {
					maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
					Thread.yield();
					inFlight.decrementAndGet();
				}
				completed.incrementAndGet();
			}
			return null;
		});
		assertThat(completed).hasValue(THREADS * callsPerThread);
		assertThat(maxInFlight.get()).isLessThanOrEqualTo(3);
		assertThat(limiter.inspect("k").getInFlight()).isZero();
	}

	/** Half the threads wait for a returned permit, the other half retry after each rejection. */
	private static Permit acquire(RateLimiter limiter, boolean waits) {
		if (waits) {
			return limiter.acquire("k", 1, Duration.ofSeconds(10));
		}
		while (true) {
			try {
				return limiter.acquire("k", 1, Duration.ZERO);
			}
			catch (RateLimitExceededException ex) {
				Thread.onSpinWait();
			}
		}
	}

	/**
	 * Sixteen threads on two stacked limiters: four per-user keys of 30 each and one shared
	 * window of 100. Calls the shared window rejects give their per-user share back, so exactly
	 * 100 calls are admitted, every admitted call counted once by each limiter, none lost.
	 */
	@Test
	void sixteenThreadsOnStackedLimitersAdmitExactlyTheSharedLimitAndGiveBackTheRest() throws Exception {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.limiter("user", RateLimiterSettings.builder()
				.tokenBucket(30, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
				.window(30, Duration.ofSeconds(1))
				.build())
			.limiter("shared", RateLimiterSettings.builder().window(100, Duration.ofSeconds(1)).build())
			.build();
		RateLimiter user = registry.get("user");
		RateLimiter shared = registry.get("shared");
		AtomicIntegerArray admittedPerUser = new AtomicIntegerArray(4);
		CyclicBarrier start = new CyclicBarrier(MANY_THREADS);
		this.threads.runEach(MANY_THREADS, (thread) -> {
			int userIndex = thread % 4;
			start.await();
			for (int call = 0; call < 200; call++) {
				try (Permit permit = registry.acquireAll(
						List.of(new RateLimitRequest(user, "user-" + userIndex, 1, Duration.ZERO),
								new RateLimitRequest(shared, "", 1, Duration.ZERO)))) {
					admittedPerUser.incrementAndGet(userIndex);
				}
				catch (RateLimitExceededException ex) {
					// rejected: counted nowhere
				}
			}
			return null;
		});
		int total = 0;
		for (int i = 0; i < 4; i++) {
			int admitted = admittedPerUser.get(i);
			assertThat(admitted).isLessThanOrEqualTo(30);
			assertThat(user.inspect("user-" + i).getQuotas()).extracting(RateLimitDecision.Quota::remaining)
				.containsExactly(30L - admitted, 30L - admitted);
			total += admitted;
		}
		assertThat(total).isEqualTo(100);
		assertThat(shared.inspect("").getRemaining()).isZero();
	}

	/**
	 * All threads call until rejected, then the clock steps 1 ms (moved by the barrier between
	 * steps); returns how many were admitted at each millisecond.
	 */
	private AtomicIntegerArray admittedPerMillisecond(RateLimiter limiter, String key, int lastMillis)
			throws Exception {
		AtomicIntegerArray admittedAt = new AtomicIntegerArray(lastMillis + 1);
		CyclicBarrier step = new CyclicBarrier(THREADS, () -> this.ticker.advance(Duration.ofMillis(1)));
		this.threads.runEach(THREADS, (thread) -> {
			for (int millis = 0; millis <= lastMillis; millis++) {
				while (limiter.tryAcquire(key, 1).isPermitted()) {
					admittedAt.incrementAndGet(millis);
				}
				step.await(10, TimeUnit.SECONDS);
			}
			return null;
		});
		return admittedAt;
	}

}
