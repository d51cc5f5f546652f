package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreStatus;
import dev.resilience.ratelimit.Throttle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RateLimiter#getConcurrencyLimit()}: the limit on calls in flight in force, as the gauge
 * {@code resilience.ratelimiter.concurrency.limit} reads it (SPEC §11).
 */
class ConcurrencyLimitReadingTests {

	private static final AdaptiveConcurrencySettings ADAPTIVE = new AdaptiveConcurrencySettings(
			AdaptiveConcurrencySettings.Algorithm.GRADIENT, 10, 1, 50);

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void anAdaptiveLimiterWithoutKeysIsAtItsInitialLimit() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "llm", adaptive(ADAPTIVE));
		assertThat(limiter.getConcurrencyLimit()).hasValue(10);
	}

	@Test
	void dropsLowerTheKeysLimitAndTheLimiterShowsTheLowestOfItsKeys() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "llm", adaptive(ADAPTIVE));
		call(limiter, "alice", false);
		assertThat(limiter.getConcurrencyLimit()).as("alice's first probe, at min-limit").hasValue(1);
		probe(limiter, "alice");
		probe(limiter, "bob");
		probe(limiter, "");
		assertThat(limiter.getConcurrencyLimit()).hasValue(10);
		for (int i = 0; i < 3; i++) {
			call(limiter, "bob", true); // each drop cuts to nine tenths: 9, 8, 7
		}
		assertThat(limiter.inspect("bob").getMaxConcurrent()).isEqualTo(7);
		assertThat(limiter.inspect("alice").getMaxConcurrent()).isEqualTo(10);
		assertThat(limiter.getConcurrencyLimit()).hasValue(7);
		call(limiter, "", true); // the shared key counts too
		call(limiter, "", true);
		call(limiter, "", true);
		call(limiter, "", true);
		assertThat(limiter.getConcurrencyLimit()).hasValue(6);
		limiter.reset("");
		limiter.reset("bob");
		assertThat(limiter.getConcurrencyLimit()).hasValue(10);
		limiter.reset("alice");
		assertThat(limiter.getConcurrencyLimit()).as("no key held").hasValue(10);
	}

	@Test
	void readingTheLimitNeitherTakesNorHoldsAPermit() {
		RateLimiter limiter = TestLimiters.onManualClock(this.ticker, "llm", adaptive(ADAPTIVE));
		probe(limiter, "alice");
		try (Permit held = limiter.acquire("alice", 1, Duration.ZERO)) {
			assertThat(limiter.getConcurrencyLimit()).hasValue(10);
			assertThat(limiter.inspect("alice").getInFlight()).isEqualTo(1);
		}
		assertThat(limiter.inspect("alice").getInFlight()).isZero();
	}

	@Test
	void aFixedLimitIsMaxConcurrentAndNoLimitIsEmpty() {
		RateLimiter fixed = TestLimiters.onManualClock(this.ticker, "fixed",
				RateLimiterSettings.builder().maxConcurrent(4, Duration.ofMinutes(1)).build());
		RateLimiter windowed = TestLimiters.onManualClock(this.ticker, "windowed",
				RateLimiterSettings.builder().window(5, Duration.ofSeconds(1)).build());
		assertThat(fixed.getConcurrencyLimit()).hasValue(4);
		assertThat(windowed.getConcurrencyLimit()).isEmpty();
	}

	@Test
	void aLimiterTurnedAdaptiveAndBackAtRunTimeShowsTheLimitInForce() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.limiter("llm", RateLimiterSettings.builder().maxConcurrent(4, Duration.ofMinutes(1)).build())
			.build();
		RateLimiter limiter = registry.get("llm");
		call(limiter, "alice", false);
		assertThat(limiter.getConcurrencyLimit()).hasValue(4);
		registry.updateSettings("llm", adaptive(ADAPTIVE));
		// the key has not decided under the adaptive settings yet: it begins its probe, at min-limit
		assertThat(limiter.getConcurrencyLimit()).hasValue(1);
		probe(limiter, "alice");
		assertThat(limiter.getConcurrencyLimit()).hasValue(10);
		call(limiter, "alice", true);
		assertThat(limiter.getConcurrencyLimit()).hasValue(9);
		registry.updateSettings("llm",
				adaptive(new AdaptiveConcurrencySettings(AdaptiveConcurrencySettings.Algorithm.AIMD, 5, 1, 5)));
		probe(limiter, "alice");
		assertThat(limiter.getConcurrencyLimit()).as("kept within the new max-limit").hasValue(5);
		registry.updateSettings("llm", RateLimiterSettings.builder().maxConcurrent(3, Duration.ofMinutes(1)).build());
		assertThat(limiter.getConcurrencyLimit()).hasValue(3);
	}

	@Test
	void aLimiterOfOurOwnTellsOnlyAFixedLimit() {
		RateLimiter adaptive = TestLimiters.onManualClock(this.ticker, "llm", adaptive(ADAPTIVE));
		RateLimiter own = new RateLimiter() {

			@Override
			public String getName() {
				return "own";
			}

			@Override
			public RateLimiterSettings getSettings() {
				return adaptive.getSettings();
			}

			@Override
			public String getStoreType() {
				return "own";
			}

			@Override
			public RateLimitDecision tryAcquire(String key, int cost) {
				throw new UnsupportedOperationException();
			}

			@Override
			public Permit acquire(String key, int cost, Duration maxWait) {
				throw new UnsupportedOperationException();
			}

			@Override
			public CompletableFuture<Permit> acquireAsync(String key, int cost, Duration maxWait,
					ScheduledExecutorService scheduler) {
				throw new UnsupportedOperationException();
			}

			@Override
			public Reservation reserve(String key, int cost, Duration maxWait) {
				throw new UnsupportedOperationException();
			}

			@Override
			public CompletableFuture<Reservation> reserveAsync(String key,
					int cost, Duration maxWait) {
				throw new UnsupportedOperationException();
			}

			@Override
			public void awaitPermit(String key, Duration maxWait) {
				throw new UnsupportedOperationException();
			}

			@Override
			public CompletableFuture<Void> awaitPermitAsync(String key, Duration maxWait,
					ScheduledExecutorService scheduler) {
				throw new UnsupportedOperationException();
			}

			@Override
			public Duration pause(String key, Throttle throttle) {
				throw new UnsupportedOperationException();
			}

			@Override
			public CompletableFuture<Duration> pauseAsync(String key,
					Throttle throttle) {
				throw new UnsupportedOperationException();
			}

			@Override
			public RateLimitDecision inspect(String key) {
				throw new UnsupportedOperationException();
			}

			@Override
			public void reset(String key) {
				throw new UnsupportedOperationException();
			}

			@Override
			public OptionalLong getKeyCount() {
				return OptionalLong.empty();
			}

			@Override
			public StoreStatus checkStoreStatus() {
				return StoreStatus.LOCAL;
			}

			@Override
			public long getStoreErrors() {
				return 0;
			}

		};
		assertThat(own.getConcurrencyLimit()).isEqualTo(OptionalInt.empty());
	}

	/** One call of the key that takes 10 ms, ended with a drop or not. */
	/** Runs the key's probe at the latency of {@link #call}: its limit is then the one it goes on from. */
	private void probe(RateLimiter limiter, String key) {
		AdaptiveProbe.run(limiter, key, this.ticker::advance, Duration.ofMillis(10));
	}

	private void call(RateLimiter limiter, String key, boolean dropped) {
		Permit permit = limiter.acquire(key, 1, Duration.ZERO);
		this.ticker.advance(Duration.ofMillis(10));
		if (dropped) {
			permit.recordDrop();
		}
		permit.close();
		this.ticker.advance(Duration.ofMillis(1));
	}

	private static RateLimiterSettings adaptive(AdaptiveConcurrencySettings adaptive) {
		return RateLimiterSettings.builder().adaptiveConcurrency(adaptive, Duration.ofMinutes(1)).build();
	}

}
