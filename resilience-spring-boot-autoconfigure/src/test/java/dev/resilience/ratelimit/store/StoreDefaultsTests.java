package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreStatus;
import dev.resilience.ratelimit.WindowSettings;

import static dev.resilience.ratelimit.store.AsyncFixture.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What a store that implements only the required methods gets by default, what the limiter in
 * front of a store checks and answers itself, and how the parts describe themselves.
 */
class StoreDefaultsTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void aStoreThatCannotTellItsKeysOrItsStatusIsLocalWithoutACount() {
		RateLimitStore minimal = minimal(new InMemoryRateLimitStore("api", settings(), this.ticker));

		assertThat(minimal.keyCount()).isEmpty();
		assertThat(minimal.checkStatus()).isEqualTo(StoreStatus.LOCAL);
		assertThat(minimal.errorCount()).isZero();
		assertThat(minimal.updateSettings(settings())).isFalse();
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.store("minimal", (name, settings, ticker) -> minimal(new InMemoryRateLimitStore(name, settings, ticker)))
			.limiter("api", RateLimiterSettings.builder().store("minimal").window(5, Duration.ofSeconds(1)).build())
			.build()
			.get("api");
		limiter.tryAcquire("k", 1);
		assertThat(limiter.getKeyCount()).isEqualTo(OptionalLong.empty());
		assertThat(limiter.checkStoreStatus()).isEqualTo(StoreStatus.LOCAL);
	}

	@Test
	void anAsynchronousReservationChecksTheCostBeforeTheStoreSeesIt() {
		RateLimiter limiter = limiter();
		String blocking = catchThrowableOfType(IllegalArgumentException.class,
				() -> limiter.reserve("k", 6, Duration.ZERO)).getMessage();

		CompletableFuture<Reservation> tooCostly = limiter.reserveAsync("k", 6, Duration.ZERO);
		CompletableFuture<Reservation> free = limiter.reserveAsync("k", 0, Duration.ZERO);

		assertThat(failure(tooCostly)).isInstanceOf(IllegalArgumentException.class)
			.hasMessage(blocking)
			.hasMessageStartingWith("Rate limiter 'api': ");
		assertThat(failure(free)).isInstanceOf(IllegalArgumentException.class);
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(5);
	}

	@Test
	void anAsynchronousPermitWaitWithoutASchedulerFailsTheFutureInsteadOfThrowing() {
		RateLimiter limiter = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.limiter("api", RateLimiterSettings.builder().maxConcurrent(1, Duration.ofMinutes(1)).build())
			.build()
			.get("api");

		assertThat(failure(limiter.awaitPermitAsync("k", Duration.ofSeconds(1), null)))
			.isInstanceOf(NullPointerException.class)
			.hasMessage("scheduler");
	}

	@Test
	void aPermitWhoseReturnThrowsClosesWithAFailedFuture() {
		IllegalStateException down = new IllegalStateException("store down");
		Reservation broken = new Reservation() {

			@Override
			public RateLimitDecision getDecision() {
				throw new UnsupportedOperationException();
			}

			@Override
			public void cancel() {
			}

			@Override
			public void release() {
				throw down;
			}

		};
		Permit permit = new Permit(List.of(broken), Duration.ZERO);

		CompletableFuture<Void> closed = permit.closeAsync();

		assertThat(failure(closed)).isSameAs(down);
		// closed once: a second close returns nothing more
		assertThat(permit.closeAsync()).isCompleted();
	}

	@Test
	void partsSayWhatTheyAre() {
		assertThat(limiter()).hasToString("RateLimiter[api, store=memory]");
		WindowSettings window = new WindowSettings(10, Duration.ofNanos(100));
		WindowLog log = new WindowLog();
		log.add(window, 10, 1, 1);
		log.add(window, 20, 2, 2);
		assertThat(log).hasToString("WindowLog[10, 20]");
	}

	private RateLimiter limiter() {
		return StoreRateLimiterRegistry.builder().ticker(this.ticker).limiter("api", settings()).build().get("api");
	}

	private static RateLimiterSettings settings() {
		return RateLimiterSettings.builder().window(5, Duration.ofSeconds(1)).build();
	}

	/** A store with the required methods only, each passed on to an in-memory store. */
	private static RateLimitStore minimal(InMemoryRateLimitStore delegate) {
		return new RateLimitStore() {

			@Override
			public String getType() {
				return "minimal";
			}

			@Override
			public Reservation reserve(String key, long cost, long maxWaitNanos) {
				return delegate.reserve(key, cost, maxWaitNanos);
			}

			@Override
			public RateLimitDecision tryAcquire(String key, long cost) {
				return delegate.tryAcquire(key, cost);
			}

			@Override
			public void awaitPermit(String key, long nanos) throws InterruptedException {
				delegate.awaitPermit(key, nanos);
			}

			@Override
			public RateLimitDecision inspect(String key) {
				return delegate.inspect(key);
			}

			@Override
			public void reset(String key) {
				delegate.reset(key);
			}

		};
	}

}
