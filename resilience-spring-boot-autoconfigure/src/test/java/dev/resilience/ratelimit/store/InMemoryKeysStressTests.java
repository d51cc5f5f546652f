package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory store's keys under many threads: a sweep racing decisions on an idle key loses
 * none of them, and a flood of distinct keys never leaves more than {@code max-keys}.
 */
class InMemoryKeysStressTests {

	private static final int THREADS = 16;

	private static final int KEYS = 64;

	private final ManualTicker ticker = new ManualTicker();

	/** The callers and a sweeper. */
	@RegisterExtension
	final StressThreads threads = new StressThreads(THREADS + 1);

	/**
	 * Each round the keys have been idle past their horizon, so every sweep may forget them;
	 * sixteen threads then ask for each of 64 keys 4 times while another thread sweeps without
	 * pause. The clock stands still, so exactly the capacity of each key is admitted each round:
	 * a decision made on a state the sweep removed would admit more.
	 */
	@Test
	void sweepRacingDecisionsOnABucketKeyLosesNone() throws Exception {
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api", RateLimiterSettings.builder()
			.tokenBucket(5, 5, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build(), this.ticker);
		assertThat(admittedPerRound(store, 100)).containsOnly(KEYS * 5);
	}

	@Test
	void sweepRacingDecisionsOnAWindowKeyLosesNone() throws Exception {
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api", RateLimiterSettings.builder()
			.tokenBucket(50, 50, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(5, Duration.ofSeconds(1))
			.build(), this.ticker);
		assertThat(admittedPerRound(store, 100)).containsOnly(KEYS * 5);
	}

	private List<Integer> admittedPerRound(InMemoryRateLimitStore store, int rounds) throws Exception {
		List<Integer> admitted = new ArrayList<>();
		for (int round = 0; round < rounds; round++) {
			this.ticker.advance(Duration.ofSeconds(10));
			AtomicInteger count = new AtomicInteger();
			AtomicBoolean done = new AtomicBoolean();
			CyclicBarrier start = new CyclicBarrier(THREADS + 1);
			List<Future<?>> callers = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				callers.add(this.threads.submit(() -> {
					start.await();
					for (int key = 0; key < KEYS; key++) {
						for (int call = 0; call < 4; call++) {
							if (store.tryAcquire("k" + key, 1).isPermitted()) {
								count.incrementAndGet();
							}
						}
					}
					return null;
				}));
			}
			Future<?> sweeper = this.threads.submit(() -> {
				start.await();
				while (!done.get()) {
					store.sweep();
				}
				return null;
			});
			for (Future<?> caller : callers) {
				caller.get(30, TimeUnit.SECONDS);
			}
			done.set(true);
			sweeper.get(30, TimeUnit.SECONDS);
			admitted.add(count.get());
		}
		return admitted;
	}

	/**
	 * Sixteen threads add 2,000 new keys each to a store of at most 100 on a limiter refilling
	 * over an hour, so no key is idle and every new key must make room: each call is admitted as
	 * a new key, and the store ends holding exactly 100 keys, its count of keys matching its map.
	 */
	@Test
	void floodOfDistinctKeysFromSixteenThreadsHoldsAtMostMaxKeys() throws Exception {
		InMemoryRateLimitStore store = new InMemoryRateLimitStore("api", RateLimiterSettings.builder()
			.tokenBucket(10, 10, Duration.ofHours(1), RefillStrategy.GREEDY)
			.maxKeys(100)
			.build(), this.ticker);
		CyclicBarrier start = new CyclicBarrier(THREADS);
		List<Integer> admittedFull = this.threads.runEach(THREADS, (thread) -> {
			start.await();
			int admitted = 0;
			for (int key = 0; key < 2_000; key++) {
				RateLimitDecision decision = store.tryAcquire("attacker-" + thread + "-" + key, 1);
				if (decision.isPermitted() && decision.getRemaining() == 9) {
					admitted++;
				}
				assertThat(store.heldKeys()).isLessThanOrEqualTo(100);
			}
			return admitted;
		});
		assertThat(admittedFull).containsOnly(2_000).hasSize(THREADS);
		assertThat(store.keyCount().getAsLong()).isEqualTo(100);
		assertThat(store.heldKeys()).isEqualTo(100);
	}

}
