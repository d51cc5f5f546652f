package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * New keys asked for by many threads at once: each is made once, so each admits exactly its
 * capacity, and the store counts each key once.
 */
class NewKeyRaceStressTests {

	private static final int THREADS = 16;

	private static final int KEYS = 2_000;

	private static final int CAPACITY = 5;

	private final ManualTicker ticker = new ManualTicker();

	private final ExecutorService executor = Executors.newFixedThreadPool(THREADS);

	@AfterEach
	void shutDown() throws InterruptedException {
		this.executor.shutdownNow();
		assertThat(this.executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void bucketKeysRacedIntoBeingAdmitExactlyTheirCapacity() throws Exception {
		assertExactCounts(RateLimiterSettings.builder()
			.tokenBucket(CAPACITY, CAPACITY, Duration.ofHours(1), RefillStrategy.GREEDY)
			.build());
	}

	@Test
	void windowKeysRacedIntoBeingAdmitExactlyTheirCapacity() throws Exception {
		assertExactCounts(RateLimiterSettings.builder().window(CAPACITY, Duration.ofHours(1)).build());
	}

	private void assertExactCounts(RateLimiterSettings settings) throws Exception {
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api", settings, this.ticker);
		AtomicLongArray admitted = new AtomicLongArray(KEYS);
		CyclicBarrier start = new CyclicBarrier(THREADS);
		List<Future<?>> threads = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			threads.add(this.executor.submit(() -> {
				start.await();
				// every thread walks the keys in the same order, so they meet on each new key
				for (int key = 0; key < KEYS; key++) {
					if (store.tryAcquire("key-" + key, 1).isPermitted()) {
						admitted.incrementAndGet(key);
					}
				}
				return null;
			}));
		}
		for (Future<?> thread : threads) {
			thread.get(60, TimeUnit.SECONDS);
		}
		for (int key = 0; key < KEYS; key++) {
			assertThat(admitted.get(key)).as("key-%d", key).isEqualTo(CAPACITY);
		}
		assertThat(store.heldKeys()).isEqualTo(KEYS);
		assertThat(store.keyCount()).hasValue(KEYS);
	}

}
