package dev.resilience.ratelimit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-memory store: one state per key, and keys forgotten once their state is back to full. */
class InMemoryRateLimitStoreTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void storeKeepsOneBucketPerKeyAsInExWaitersGenServerExample() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 2, Duration.ofMillis(100), RefillStrategy.INTERVAL)
			.build());
		assertThat(take(store, "jane")).isEqualTo("ok 1");
		assertThat(take(store, "jane")).isEqualTo("ok 0");
		assertThat(take(store, "bill")).isEqualTo("ok 1");
		assertThat(take(store, "jane")).isEqualTo("error 0");
		assertThat(take(store, "bill")).isEqualTo("ok 0");
		assertThat(take(store, "bill")).isEqualTo("error 0");
		this.ticker.advance(Duration.ofMillis(100));
		assertThat(take(store, "bill")).isEqualTo("ok 1");
		assertThat(take(store, "pam")).isEqualTo("ok 1");
		assertThat(take(store, "jane")).isEqualTo("ok 1");
		assertThat(take(store, "bill")).isEqualTo("ok 0");
		assertThat(take(store, "bill")).isEqualTo("error 0");
	}

	@Test
	void storeForgetsBucketKeyExactlyWhenItIsFullAgain() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(2, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build());
		take(store, "a");
		assertThat(store.size()).isEqualTo(1);
		this.ticker.set(Duration.ofSeconds(1).minusNanos(1));
		assertThat(store.size()).isEqualTo(1);
		this.ticker.set(Duration.ofSeconds(1));
		assertThat(store.size()).isZero();
		assertThat(store.inspect("a").getRemaining()).isEqualTo(2);
	}

	@Test
	void storeForgetsWindowKeyOnePeriodAfterItsLastEntry() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(3, Duration.ofSeconds(1)).build());
		take(store, "a");
		this.ticker.set(Duration.ofMillis(400));
		take(store, "a");
		this.ticker.set(Duration.ofMillis(1400).minusNanos(1));
		assertThat(store.size()).isEqualTo(1);
		this.ticker.set(Duration.ofMillis(1400));
		assertThat(store.size()).isZero();
	}

	@Test
	void storeForgetsCounterKeyWhenBothFixedWindowsAreEmpty() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.window(3, Duration.ofSeconds(1))
			.windowAlgorithm(WindowAlgorithm.COUNTER)
			.build());
		take(store, "a");
		this.ticker.set(Duration.ofSeconds(2).minusNanos(1));
		assertThat(store.size()).isEqualTo(1);
		this.ticker.set(Duration.ofSeconds(2));
		assertThat(store.size()).isZero();
	}

	@Test
	void storeForgetsTenThousandIdleKeys() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(5, 5, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(5, Duration.ofMillis(500))
			.build());
		for (int i = 0; i < 10_000; i++) {
			assertThat(take(store, "key-" + i)).isEqualTo("ok 4");
		}
		assertThat(store.size()).isEqualTo(10_000);
		this.ticker.set(Duration.ofMillis(500).minusNanos(1));
		assertThat(store.size()).isEqualTo(10_000);
		this.ticker.set(Duration.ofMillis(500));
		assertThat(store.size()).isZero();
	}

	@Test
	void storeKeepsKeyHoldingAPermitUntilItsLeaseExpires() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.tokenBucket(5, 5, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.maxConcurrent(1, Duration.ofSeconds(5))
			.build());
		store.reserve("a", 1, 0);
		this.ticker.set(Duration.ofSeconds(5).minusNanos(1));
		assertThat(store.size()).isEqualTo(1);
		assertThat(store.reserve("a", 1, 0).getDecision().isPermitted()).isFalse();
		this.ticker.set(Duration.ofSeconds(5));
		assertThat(store.size()).isZero();
		assertThat(store.reserve("a", 1, 0).getDecision().isPermitted()).isTrue();
	}

	@Test
	void storeForgetsConcurrencyOnlyKeyWhenItsLastPermitIsReturned() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder()
			.maxConcurrent(2, Duration.ofSeconds(5))
			.build());
		Reservation first = store.reserve("a", 1, 0);
		Reservation second = store.reserve("a", 1, 0);
		first.release();
		assertThat(store.size()).isEqualTo(1);
		second.release();
		assertThat(store.size()).isZero();
	}

	@Test
	void storeResetForgetsOneKey() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		take(store, "a");
		take(store, "b");
		store.reset("a");
		assertThat(store.size()).isEqualTo(1);
		assertThat(take(store, "a")).isEqualTo("ok 0");
		assertThat(take(store, "b")).isEqualTo("error 0");
	}

	@Test
	void inspectDoesNotCreateKeys() {
		InMemoryRateLimitStore store = store(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		assertThat(store.inspect("a").getRemaining()).isEqualTo(1);
		assertThat(store.size()).isZero();
	}

	private String take(InMemoryRateLimitStore store, String key) {
		RateLimitDecision decision = store.reserve(key, 1, 0).getDecision();
		return (decision.isPermitted() ? "ok " : "error ") + decision.getRemaining();
	}

	private InMemoryRateLimitStore store(RateLimiterSettings settings) {
		return new InMemoryRateLimitStore("api", settings, this.ticker);
	}

}
