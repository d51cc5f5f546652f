package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLongArray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

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

	@RegisterExtension
	final StressThreads threads = new StressThreads(THREADS);

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
		this.threads.runEach(THREADS, (thread) -> {
			start.await();
			// every thread walks the keys in the same order, so they meet on each new key
			for (int key = 0; key < KEYS; key++) {
				if (store.tryAcquire("key-" + key, 1).isPermitted()) {
					admitted.incrementAndGet(key);
				}
			}
			return null;
		});
		for (int key = 0; key < KEYS; key++) {
			assertThat(admitted.get(key)).as("key-%d", key).isEqualTo(CAPACITY);
		}
		assertThat(store.heldKeys()).isEqualTo(KEYS);
		assertThat(store.keyCount()).hasValue(KEYS);
	}

}
