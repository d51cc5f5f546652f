package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sixteen threads acquire through two stacked limiters without holding a thread, and cancel many
 * of their calls at random moments: while deciding, while waiting for a returned permit, or just
 * as the call is admitted. Every reservation is admitted and returned, or given back, exactly once.
 */
class AcquireAsyncStressTests {

	private static final int THREADS = 16;

	private static final int CALLS_PER_THREAD = 300;

	private static final int USERS = 4;

	private static final long WINDOW_LIMIT = 1_000_000;

	/**
	 * Run with an in-memory store, whose decisions complete at once, and with one whose decisions
	 * complete on a thread of its own, as a remote store's do: then calls are also cancelled while
	 * their decision is in flight.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void sixteenThreadsCancellingAtRandomLeaveEveryKeyExactlyAsTheAdmittedCallsLeftIt(boolean remote) throws Exception {
		// The ticker stands still: windows never make anybody wait, only permits do (in real time).
		ManualTicker ticker = new ManualTicker();
		ExecutorService storeThreads = Executors.newFixedThreadPool(2);
		Map<String, InMemoryRateLimitStore> stores = new ConcurrentHashMap<>();
		Map<String, Counts> counts = new ConcurrentHashMap<>();
		Map<String, LongAdder> admittedEvents = new ConcurrentHashMap<>();
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(ticker)
			.listener((limiter, decision) -> {
				if (decision.isPermitted()) {
					admittedEvents.computeIfAbsent(limiter.getName() + "/" + decision.getKey(), (k) -> new LongAdder())
						.increment();
				}
			})
			.store("counting", (name, settings, clock) -> {
				InMemoryRateLimitStore store = new InMemoryRateLimitStore(name, settings, clock);
				stores.put(name, store);
				Counts counted = new Counts();
				counts.put(name, counted);
				return counting(store, counted, remote ? storeThreads : null);
			})
			.limiter("user", RateLimiterSettings.builder()
				.store("counting")
				.window(WINDOW_LIMIT, Duration.ofHours(1))
				.maxConcurrent(2, Duration.ofMinutes(1))
				.build())
			.limiter("global", RateLimiterSettings.builder()
				.store("counting")
				.maxConcurrent(5, Duration.ofMinutes(1))
				.build())
			.build();
		RateLimiter user = registry.get("user");
		RateLimiter global = registry.get("global");
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
		scheduler.setRemoveOnCancelPolicy(true);
		AtomicIntegerArray inFlightPerUser = new AtomicIntegerArray(USERS);
		AtomicInteger inFlight = new AtomicInteger();
		AtomicBoolean overLimit = new AtomicBoolean();
		LongAdder delivered = new LongAdder();
		LongAdder closed = new LongAdder();
		LongAdder cancelled = new LongAdder();
		LongAdder rejected = new LongAdder();
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			CyclicBarrier start = new CyclicBarrier(THREADS);
			List<Future<?>> workers = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				int userIndex = i % USERS;
				workers.add(pool.submit(() -> {
					start.await();
					ThreadLocalRandom random = ThreadLocalRandom.current();
					List<RateLimitRequest> requests = List.of(
							new RateLimitRequest(user, "user-" + userIndex, 1, Duration.ofMillis(200)),
							new RateLimitRequest(global, "", 1, Duration.ofMillis(200)));
					for (int call = 0; call < CALLS_PER_THREAD; call++) {
						CompletableFuture<Permit> acquired = registry.acquireAllAsync(requests, scheduler);
						int mode = random.nextInt(4);
						if (mode < 2) {
							for (int spin = random.nextInt(mode * 2_000 + 1); spin > 0; spin--) {
								Thread.onSpinWait();
							}
							if (acquired.cancel(true)) {
								cancelled.increment();
								continue;
							}
						}
						Permit permit;
						try {
							permit = acquired.get(30, TimeUnit.SECONDS);
						}
						catch (ExecutionException ex) {
							assertThat(ex.getCause()).isInstanceOf(RateLimitExceededException.class);
							rejected.increment();
							continue;
						}
						delivered.increment();
						if (inFlightPerUser.incrementAndGet(userIndex) > 2 | inFlight.incrementAndGet() > 5) {
							overLimit.set(true);
						}
						Thread.yield();
						inFlightPerUser.decrementAndGet(userIndex);
						inFlight.decrementAndGet();
						if (random.nextBoolean()) {
							permit.closeAsync();
						}
						else {
							permit.close();
						}
						closed.increment();
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
			// Decisions in flight and steps still running give back what they hold before the
			// counts are read.
			storeThreads.shutdown();
			assertThat(storeThreads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
			scheduler.shutdown();
			assertThat(scheduler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(overLimit).isFalse();
		assertThat(delivered.sum()).isPositive();
		assertThat(cancelled.sum()).isPositive();
		assertThat(closed.sum()).isEqualTo(delivered.sum());
		// Calls admitted as a cancellation came were closed by the acquisition itself.
		long admittedCalls = admittedEvents.get("global/").sum();
		assertThat(admittedCalls).isGreaterThanOrEqualTo(delivered.sum());
		for (Map.Entry<String, Counts> entry : counts.entrySet()) {
			Counts counted = entry.getValue();
			assertThat(counted.duplicates.sum()).as("reservations of %s returned twice", entry.getKey()).isZero();
			assertThat(counted.released.sum()).as("permits of %s returned", entry.getKey()).isEqualTo(admittedCalls);
			assertThat(counted.released.sum() + counted.givenBack.sum()).as("reservations of %s", entry.getKey())
				.isEqualTo(counted.permitted.sum());
		}
		long windowUsed = 0;
		for (int i = 0; i < USERS; i++) {
			String key = "user-" + i;
			RateLimitDecision state = user.inspect(key);
			assertThat(state.getInFlight()).isZero();
			LongAdder admitted = admittedEvents.get("user/" + key);
			long admittedForKey = (admitted != null) ? admitted.sum() : 0;
			// every call given back left the window as if it had not asked
			assertThat(state.getQuotas().get(0).remaining()).isEqualTo(WINDOW_LIMIT - admittedForKey);
			assertThat(InMemoryPermitWaiterTests.waiters(stores.get("user"), key)).isZero();
			windowUsed += admittedForKey;
		}
		assertThat(windowUsed).isEqualTo(admittedCalls);
		assertThat(global.inspect("").getInFlight()).isZero();
		assertThat(InMemoryPermitWaiterTests.waiters(stores.get("global"), "")).isZero();
		// and once the window's hour has passed, every key is back to full
		ticker.advance(Duration.ofHours(1));
		for (int i = 0; i < USERS; i++) {
			assertThat(user.inspect("user-" + i).getRemaining()).isEqualTo(2);
			assertThat(user.inspect("user-" + i).getQuotas().get(0).remaining()).isEqualTo(WINDOW_LIMIT);
		}
		assertThat(global.inspect("").getRemaining()).isEqualTo(5);
	}

	/**
	 * Counts every reservation a store admits and what becomes of it; with {@code storeThreads},
	 * decides on them.
	 */
	private static RateLimitStore counting(RateLimitStore delegate, Counts counts,
			@Nullable ExecutorService storeThreads) {
		return new ForwardingStore("counting", delegate) {

			@Override
			public CompletableFuture<Reservation> reserveAsync(String key, long cost, long maxWaitNanos) {
				if (storeThreads == null) {
					return super.reserveAsync(key, cost, maxWaitNanos);
				}
				return CompletableFuture.supplyAsync(() -> reserve(key, cost, maxWaitNanos), storeThreads);
			}

			@Override
			public Reservation reserve(String key, long cost, long maxWaitNanos) {
				Reservation reservation = super.reserve(key, cost, maxWaitNanos);
				if (!reservation.getDecision().isPermitted()) {
					return reservation;
				}
				counts.permitted.increment();
				return new CountedReservation(reservation, counts);
			}

		};
	}

	private static final class Counts {

		final LongAdder permitted = new LongAdder();

		final LongAdder released = new LongAdder();

		final LongAdder givenBack = new LongAdder();

		final LongAdder duplicates = new LongAdder();

	}

	private static final class CountedReservation implements Reservation {

		private final Reservation delegate;

		private final Counts counts;

		private final AtomicBoolean done = new AtomicBoolean();

		CountedReservation(Reservation delegate, Counts counts) {
			this.delegate = delegate;
			this.counts = counts;
		}

		@Override
		public RateLimitDecision getDecision() {
			return this.delegate.getDecision();
		}

		@Override
		public void cancel() {
			count(this.counts.givenBack);
			this.delegate.cancel();
		}

		@Override
		public void release() {
			count(this.counts.released);
			this.delegate.release();
		}

		private void count(LongAdder counter) {
			if (this.done.compareAndSet(false, true)) {
				counter.increment();
			}
			else {
				this.counts.duplicates.increment();
			}
		}

	}

}
