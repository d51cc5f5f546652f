package dev.resilience.ratelimit.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Retry-After of a key out of concurrency permits comes from how long permits are typically
 * held ({@code HOLD}), on a real {@code redis-server} whose scripts run on a test clock. A key's
 * typical hold lives in its state, which is deleted once the key is back to new (its last permit
 * returned): the store keeps the limiter's typical hold from the returns' replies, as the in-memory
 * store keeps one per limiter, so the key's next state does not start from nothing.
 */
class RedisTypicalHoldTests {

	private final ManualTicker clock = new ManualTicker(Duration.ofDays(20_000).toNanos());

	private final RedisServer server = RedisServer.shared();

	private final String prefix = "hold-" + System.nanoTime() + ":";

	private final RedisRateLimitStore store = new RedisRateLimitStore("hold", RateLimiterSettings.builder()
		.store(RedisRateLimitStore.TYPE)
		.maxConcurrent(1, Duration.ofMinutes(1))
		.build(), ScriptClock.runner(this.server::connect, this.clock), this.prefix, Duration.ofHours(1));

	@Test
	void theTypicalHoldOutlivesTheStateOfAKeyBackToNew() {
		Reservation first = this.store.reserve("k", 1, 0);
		this.clock.advance(Duration.ofMillis(500));
		first.release();
		// the last permit is back: the key's state, and its typical hold of 500 ms, are deleted
		assertThat(this.server.keys(this.prefix + "*")).isEmpty();

		this.clock.advance(Duration.ofSeconds(10));
		Reservation second = this.store.reserve("k", 1, 0);
		this.clock.advance(Duration.ofMillis(100));
		RateLimitDecision rejected = this.store.reserve("k", 1, 0).getDecision();
		assertThat(rejected.isConcurrencyLimited()).isTrue();
		// typically held 500 ms, held 100 ms so far: back in about 400 ms (not 100 ms, the guess of
		// a key that never learned a hold)
		assertThat(rejected.getRetryAfter()).isEqualTo(Duration.ofMillis(400));

		// the key's new state goes on from the limiter's typical hold: 500 + (300 - 500) / 8 = 475 ms
		this.clock.advance(Duration.ofMillis(200));
		second.release();
		Reservation third = this.store.reserve("k", 1, 0);
		Reservation fourth = this.store.reserve("k", 1, 0);
		assertThat(fourth.getDecision().getRetryAfter()).isEqualTo(Duration.ofMillis(475));
		third.release();
	}

}
