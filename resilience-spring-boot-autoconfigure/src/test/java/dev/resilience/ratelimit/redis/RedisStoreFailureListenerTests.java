package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.StoreFailureListener;
import dev.resilience.ratelimit.StoreFailurePolicy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link RedisRateLimitStore} tells its {@link StoreFailureListener}s of each failure it counts,
 * against a real {@code redis-server} that is killed; a listener that throws changes nothing.
 */
class RedisStoreFailureListenerTests {

	private final RedisServer server = RedisServer.start();

	private final List<String> told = new CopyOnWriteArrayList<>();

	@AfterEach
	void stop() {
		this.server.close();
	}

	private RedisRateLimitStore store(List<StoreFailureListener> listeners) {
		return new RedisRateLimitStore("partner", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(100, Duration.ofHours(1))
			.onStoreFailure(StoreFailurePolicy.FAIL_OPEN)
			.build(), this.server.runner(), "failure-listener:", Duration.ofMillis(200), listeners);
	}

	@Test
	void everyCountedFailureIsToldWithItsOperation() {
		StoreFailureListener throwing = (limiter, store, operation, failure) -> {
			throw new IllegalStateException("listener bug");
		};
		StoreFailureListener recording = (limiter, store, operation, failure) -> this.told
			.add(limiter + " " + store + " " + operation + " " + (failure != null));
		RedisRateLimitStore store = store(List.of(throwing, recording));
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(this.told).isEmpty();
		this.server.kill();
		for (int i = 0; i < 3; i++) {
			assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		store.reset("k");
		assertThat(store.errorCount()).isEqualTo(4);
		assertThat(this.told).containsExactly("partner redis decision true", "partner redis decision true",
				"partner redis decision true", "partner redis reset true");
	}

}
