package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings.Algorithm;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sixteen threads call three keys of a limiter with {@code max-concurrent: adaptive}, in real
 * time, each call ending with a drop at random (so the limits move all the time), while waiting
 * callers are interrupted and asynchronous acquisitions cancelled at random moments. Every permit
 * is returned exactly once, no key ever has more calls in flight than a limit it admitted them
 * under, and nothing is left waiting.
 */
class AdaptiveConcurrencyStressTests {

	private static final int THREADS = 16;

	private static final int CALLS_PER_THREAD = 400;

	private static final List<String> KEYS = List.of("a", "b", "c");

	/** Beyond what sixteen threads can hold: the adaptive limit, never this, is what binds. */
	private static final int MAX_LIMIT = 64;

	@RegisterExtension
	final StressThreads threads = new StressThreads(THREADS + 1);

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void everyPermitIsReturnedOnceUnderDropsInterruptionsAndCancellations(Algorithm algorithm) throws Exception {
		AtomicReference<InMemoryRateLimitStore> memory = new AtomicReference<>();
		Counts counts = new Counts();
		LongAdder admittedEvents = new LongAdder();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.listener((name, decision) -> {
				if (decision.isPermitted()) {
					admittedEvents.increment();
				}
			})
			.store("counting", (name, settings, ticker) -> {
				memory.set(new InMemoryRateLimitStore(name, settings, ticker));
				return counting(memory.get(), counts);
			})
			.limiter("partner", RateLimiterSettings.builder()
				.store("counting")
				.adaptiveConcurrency(new AdaptiveConcurrencySettings(algorithm, 4, 1, MAX_LIMIT), Duration.ofMinutes(1))
				.build())
			.build()
			.get("partner");
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
		scheduler.setRemoveOnCancelPolicy(true);
		Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> highestLimit = new ConcurrentHashMap<>();
		for (String key : KEYS) {
			holders.put(key, new AtomicInteger());
			highestLimit.put(key, new AtomicInteger());
		}
		AtomicBoolean overLimit = new AtomicBoolean();
		LongAdder delivered = new LongAdder();
		LongAdder closed = new LongAdder();
		LongAdder dropped = new LongAdder();
		LongAdder rejected = new LongAdder();
		LongAdder interrupted = new LongAdder();
		LongAdder cancelled = new LongAdder();
		AtomicReferenceArray<Thread> workers = new AtomicReferenceArray<>(THREADS);
		CountDownLatch done = new CountDownLatch(THREADS);
		CyclicBarrier start = new CyclicBarrier(THREADS);
		// Interrupts a worker waiting somewhere, until all are done.
		Future<Long> interrupter = this.threads.submit(() -> {
			long sent = 0;
			ThreadLocalRandom random = ThreadLocalRandom.current();
			while (done.getCount() > 0) {
				Thread worker = workers.get(random.nextInt(THREADS));
				if (worker != null && worker.getState() == Thread.State.TIMED_WAITING) {
					worker.interrupt();
					sent++;
				}
				LockSupport.parkNanos(200_000);
			}
			return sent;
		});
		try {
			this.threads.runEach(THREADS, (thread) -> {
				workers.set(thread, Thread.currentThread());
				try {
					start.await();
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int call = 0; call < CALLS_PER_THREAD; call++) {
						String key = KEYS.get(random.nextInt(KEYS.size()));
						Duration maxWait = Duration.ofMillis(1 + random.nextInt(20));
						Permit permit;
						if (random.nextBoolean()) {
							try {
								permit = limiter.acquire(key, 1, maxWait);
							}
							catch (RateLimitExceededException ex) {
								rejected.increment();
								continue;
							}
							catch (CancellationException ex) {
								assertThat(Thread.interrupted()).isTrue();
								interrupted.increment();
								continue;
							}
						}
						else {
							CompletableFuture<Permit> acquired = limiter.acquireAsync(key, 1, maxWait, scheduler);
							if (random.nextInt(3) == 0) {
								for (int spin = random.nextInt(2_000); spin > 0; spin--) {
									Thread.onSpinWait();
								}
								if (acquired.cancel(true)) {
									cancelled.increment();
									continue;
								}
							}
							try {
								permit = acquired.get(30, TimeUnit.SECONDS);
							}
							catch (ExecutionException ex) {
								assertThat(ex.getCause()).isInstanceOf(RateLimitExceededException.class);
								rejected.increment();
								continue;
							}
							catch (InterruptedException ex) {
								// interrupted while waiting for it: give it up, unless it came just then
								interrupted.increment();
								if (acquired.cancel(true)) {
									cancelled.increment();
									continue;
								}
								try {
									permit = acquired.getNow(null);
								}
								catch (RuntimeException failed) {
									rejected.increment();
									continue;
								}
							}
						}
						delivered.increment();
						RateLimitDecision admitted = permit.getDecisions().get(0);
						if (admitted.getInFlight() > admitted.getMaxConcurrent()) {
							overLimit.set(true);
						}
						highestLimit.get(key).accumulateAndGet(admitted.getMaxConcurrent(), Math::max);
						// In flight now are calls admitted under some limit of the key, each no higher.
						if (holders.get(key).incrementAndGet() > highestLimit.get(key).get()) {
							overLimit.set(true);
						}
						for (int spin = random.nextInt(1_000); spin > 0; spin--) {
							Thread.onSpinWait();
						}
						holders.get(key).decrementAndGet();
						if (random.nextInt(4) == 0) {
							permit.recordDrop();
							dropped.increment();
						}
						if (random.nextBoolean()) {
							permit.closeAsync();
						}
						else {
							permit.close();
						}
						closed.increment();
					}
				}
				finally {
					Thread.interrupted();
					done.countDown();
				}
				return null;
			});
			assertThat(interrupter.get(10, TimeUnit.SECONDS)).isPositive();
		}
		finally {
			// Continuations still running give back what they hold before the counts are read.
			scheduler.shutdown();
			assertThat(scheduler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(overLimit).isFalse();
		assertThat(delivered.sum()).isPositive();
		assertThat(closed.sum()).isEqualTo(delivered.sum());
		assertThat(dropped.sum()).isPositive();
		assertThat(interrupted.sum()).isPositive();
		assertThat(cancelled.sum()).isPositive();
		assertThat(rejected.sum()).as("calls the limits held back").isPositive();
		assertThat(counts.duplicates.sum()).as("reservations returned twice").isZero();
		assertThat(counts.released.sum() + counts.givenBack.sum()).isEqualTo(counts.permitted.sum());
		// calls admitted just as their acquisition was cancelled were closed by it
		assertThat(counts.released.sum()).isEqualTo(admittedEvents.sum());
		assertThat(admittedEvents.sum()).isGreaterThanOrEqualTo(delivered.sum());
		for (String key : KEYS) {
			RateLimitDecision state = limiter.inspect(key);
			assertThat(state.getInFlight()).as("calls of %s in flight", key).isZero();
			assertThat(state.getMaxConcurrent()).isBetween(1, MAX_LIMIT);
			assertThat(InMemoryPermitWaiterTests.waiters(memory.get(), key)).as("waiters of %s", key).isZero();
			KeyState keyState = memory.get().state(key);
			synchronized (keyState) {
				assertThat(keyState.slots.permitWaiters).as("threads waiting on %s", key).isZero();
			}
			// and the key admits exactly its limit
			int limit = state.getMaxConcurrent();
			for (int i = 0; i < limit; i++) {
				assertThat(limiter.reserve(key, 1, Duration.ZERO).getDecision().isPermitted()).isTrue();
			}
			assertThat(limiter.reserve(key, 1, Duration.ZERO).getDecision().isPermitted()).isFalse();
		}
	}

	/** Counts every reservation the store admits and what becomes of it. */
	private static RateLimitStore counting(InMemoryRateLimitStore delegate, Counts counts) {
		return new ForwardingStore("counting", delegate) {

			@Override
			public boolean canAdaptConcurrency() {
				return delegate.canAdaptConcurrency();
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

	/** Passes each way of returning a permit on as it is, so that drops reach the store. */
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
		public CompletableFuture<Void> cancelAsync() {
			count(this.counts.givenBack);
			return this.delegate.cancelAsync();
		}

		@Override
		public void release() {
			count(this.counts.released);
			this.delegate.release();
		}

		@Override
		public void release(boolean dropped) {
			count(this.counts.released);
			this.delegate.release(dropped);
		}

		@Override
		public CompletableFuture<Void> releaseAsync() {
			count(this.counts.released);
			return this.delegate.releaseAsync();
		}

		@Override
		public CompletableFuture<Void> releaseAsync(boolean dropped) {
			count(this.counts.released);
			return this.delegate.releaseAsync(dropped);
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
