package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import dev.resilience.ManualTicker;
import dev.resilience.Ticker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactor threads (which must not block, BlockHound installed) deciding in memory where threads
 * race: all on one key of a bucket-only limiter, where a decision that loses the bucket's
 * compare-and-set to another thread steps aside without parking or spin-wait hints, which
 * BlockHound reports, and exactly the bucket's tokens are admitted; and on new keys of a store
 * at {@code max-keys}, where a thread that needs room while another evicts, sweeps or puts a key
 * does not wait for it on a lock.
 */
class InMemoryNonBlockingContentionTests {

	private static final int THREADS = 4;

	private static final int CALLS_PER_THREAD = 20_000;

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	@Test
	void reactorThreadsOnOneKeyAdmitExactlyTheBucketWithoutBlocking() {
		int capacity = THREADS * CALLS_PER_THREAD / 2;
		RateLimiter limiter = TestLimiters.onManualClock(new ManualTicker(), "hot", RateLimiterSettings.builder()
			.tokenBucket(capacity, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.build());
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
		AtomicInteger admitted = new AtomicInteger();
		AtomicInteger rejected = new AtomicInteger();
		try {
			runTogetherOnReactorThreads("hot-key", (thread, call) -> {
				boolean async = (thread % 2 == 0);
				if (async ? admitAsync(limiter, scheduler) : limiter.tryAcquire("k", 1).isPermitted()) {
					admitted.incrementAndGet();
				}
				else {
					rejected.incrementAndGet();
				}
			});
			assertThat(admitted).hasValue(capacity);
			assertThat(rejected).hasValue(THREADS * CALLS_PER_THREAD - capacity);
		}
		finally {
			scheduler.shutdownNow();
		}
	}

	/**
	 * A flood of distinct keys on a store at max-keys, from Reactor threads: each new key makes
	 * room by evicting, and a thread that finds another evicting steps aside instead of waiting
	 * for the lock. Every call is admitted (each key is new) and the store never holds more than
	 * max-keys.
	 */
	@Test
	void reactorThreadsFloodingNewKeysEvictWithoutBlockingAndKeepMaxKeys() {
		int maxKeys = 64;
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("flood",
				RateLimiterSettings.builder().window(1, Duration.ofHours(1)).maxKeys(maxKeys).build(), new ManualTicker());
		AtomicInteger admitted = new AtomicInteger();
		AtomicInteger mostHeld = new AtomicInteger();

		runTogetherOnReactorThreads("flood", (thread, call) -> {
			if (store.tryAcquire(thread + "-" + call, 1).isPermitted()) {
				admitted.incrementAndGet();
			}
			mostHeld.accumulateAndGet(store.heldKeys(), Math::max);
		});

		assertThat(admitted).hasValue(THREADS * CALLS_PER_THREAD);
		assertThat(mostHeld).hasValue(maxKeys);
		assertThat(store.keyCount()).hasValue(maxKeys);
	}

	/**
	 * Makes {@link #CALLS_PER_THREAD} calls on each of {@link #THREADS} Reactor threads, started
	 * together so that they contend from their first call, and waits for them all.
	 */
	private static void runTogetherOnReactorThreads(String name, BiConsumer<Integer, Integer> call) {
		Scheduler nonBlocking = Schedulers.newParallel(name, THREADS);
		// the threads spin until started: waiting on a latch would be a blocking call on a Reactor thread
		AtomicBoolean started = new AtomicBoolean();
		try {
			List<CompletableFuture<Void>> callers = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int thread = t;
				callers.add(Mono.<Void>fromRunnable(() -> {
					while (!started.get()) {
						// not started yet
					}
					for (int i = 0; i < CALLS_PER_THREAD; i++) {
						call.accept(thread, i);
					}
				}).subscribeOn(nonBlocking).toFuture());
			}
			started.set(true);
			for (CompletableFuture<Void> caller : callers) {
				assertThat(caller).succeedsWithin(Duration.ofSeconds(60));
			}
		}
		finally {
			nonBlocking.dispose();
		}
	}

	/**
	 * A sweep walking the keys (a million of them, say) does not hold up a Reactor thread that
	 * needs room for a new key. The sweep is held here on one key's monitor.
	 */
	@Test
	void aNewKeyAtMaxKeysDoesNotWaitForASweep() throws Exception {
		ManualTicker ticker = new ManualTicker();
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api",
				RateLimiterSettings.builder().window(1, Duration.ofHours(1)).maxKeys(2).build(), ticker);
		assertThat(store.tryAcquire("old", 1).isPermitted()).isTrue();
		ticker.advance(Duration.ofSeconds(1));
		assertThat(store.tryAcquire("held", 1).isPermitted()).isTrue();
		KeyState held = store.state("held");
		Scheduler nonBlocking = Schedulers.newParallel("event-loop", 1);
		Thread sweeper = new Thread(store::sweep, "sweeper");
		try {
			synchronized (held) {
				sweeper.start();
				awaitState(sweeper, Thread.State.BLOCKED);

				// room is made by forgetting "old", the least recently used, whose monitor is free
				CompletableFuture<Boolean> decided = Mono.fromCallable(() -> store.tryAcquire("new", 1).isPermitted())
					.subscribeOn(nonBlocking)
					.toFuture();

				assertThat(decided).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
			}
		}
		finally {
			sweeper.join(10_000);
			nonBlocking.dispose();
		}
		assertThat(store.keyCount()).hasValue(2);
		assertThat(store.inspect("held").getRemaining()).isZero();
		assertThat(store.inspect("old").getRemaining()).as("forgotten, so full again").isOne();
	}

	/**
	 * A Reactor thread that needs room while another thread has counted the last key but not put
	 * it yet waits for it without blocking calls (it used to call Thread.yield), then evicts it.
	 */
	@Test
	void aNewKeyAtMaxKeysWaitsForAKeyBeingPutWithoutBlocking() throws Exception {
		ManualTicker manual = new ManualTicker();
		Thread[] slow = new Thread[1];
		CountDownLatch counted = new CountDownLatch(1);
		CountDownLatch go = new CountDownLatch(1);
		Ticker ticker = () -> {
			if (Thread.currentThread() == slow[0]) {
				// the slow thread reads the clock after counting its key, before putting it
				counted.countDown();
				try {
					go.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return manual.read();
		};
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api",
				RateLimiterSettings.builder().window(1, Duration.ofHours(1)).maxKeys(1).build(), ticker);
		Scheduler nonBlocking = Schedulers.newParallel("event-loop", 1);
		Thread adder = new Thread(() -> store.tryAcquire("a", 1), "adder");
		slow[0] = adder;
		try {
			adder.start();
			assertThat(counted.await(10, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Boolean> decided = Mono.fromCallable(() -> store.tryAcquire("b", 1).isPermitted())
				.subscribeOn(nonBlocking)
				.toFuture();
			Thread.sleep(100); // real time for the Reactor thread to find no room
			assertThat(decided).isNotDone();

			go.countDown();

			assertThat(decided).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		}
		finally {
			go.countDown();
			adder.join(10_000);
			nonBlocking.dispose();
		}
		// the adder, finding "a" forgotten, may have forgotten "b" in turn: either way, one key
		assertThat(store.keyCount()).hasValue(1);
	}

	private static void awaitState(Thread thread, Thread.State state) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (thread.getState() != state && System.nanoTime() < deadline) {
			Thread.sleep(1);
		}
		assertThat(thread.getState()).isEqualTo(state);
	}

	/** Whether a call without a wait is admitted, asked as a reactive caller asks. */
	private static boolean admitAsync(RateLimiter limiter, ScheduledExecutorService scheduler) {
		CompletableFuture<Permit> permit = limiter.acquireAsync("k", 1, Duration.ZERO, scheduler);
		// decided on this thread: a bucket-only limiter in memory answers at once
		assertThat(permit).isDone();
		if (!permit.isCompletedExceptionally()) {
			permit.join().close();
			return true;
		}
		assertThat(permit).failsWithin(Duration.ZERO)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(RateLimitExceededException.class);
		return false;
	}

}
