package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings.Algorithm;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests {@link RateLimiterRegistry#updateSettings} between a fixed {@code max-concurrent} and
 * {@code adaptive} (SPEC §11): calls in flight keep their permits and return exactly one each,
 * a caller waiting for a permit is still admitted, the adaptive settings change live within their
 * new bounds (after the probe that new adaptive settings begin), and a change to or from no limit
 * at all is refused naming both values.
 */
class AdaptiveSettingsUpdateTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	/** How long each call of these tests takes. */
	private static final Duration CALL = Duration.ofMillis(10);

	private final ManualTicker ticker = new ManualTicker();

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

	@AfterEach
	void stopScheduler() {
		this.scheduler.shutdownNow();
	}

	@Test
	void turningAFixedLimitAdaptiveAndBackKeepsThePermitsHeldAndTheWaiters() throws Exception {
		RateLimiterRegistry registry = registry(fixed(2));
		RateLimiter limiter = registry.get("partner");
		Permit first = limiter.acquire("k", 1);
		Permit second = limiter.acquire("k", 1);
		CompletableFuture<Permit> waiter = limiter.acquireAsync("k", 1, Duration.ofMinutes(1), this.scheduler);
		assertThat(waiter).isNotDone();

		registry.updateSettings("partner", adaptive(2, 1, 8));
		assertThat(limiter.inspect("k").getInFlight()).isEqualTo(2);
		assertThat(limiter.inspect("k").getMaxConcurrent()).as("the key's first probe, at min-limit").isEqualTo(1);
		first.close();
		first.close();
		assertThat(limiter.inspect("k").getInFlight()).as("a permit closed twice returns one").isOne();
		assertThat(waiter).as("held back while the calls in flight fill the limit").isNotDone();
		second.close();
		Permit third = waiter.get(10, TimeUnit.SECONDS);
		assertThat(limiter.inspect("k").getInFlight()).isOne();

		registry.updateSettings("partner", fixed(3));
		assertThat(limiter.inspect("k").getInFlight()).isOne();
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(3);
		Permit fourth = limiter.acquire("k", 1);
		Permit fifth = limiter.acquire("k", 1);
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> limiter.acquire("k", 1));
		second.close();
		third.close();
		fourth.close();
		fifth.close();
		assertThat(limiter.inspect("k").getInFlight()).isZero();
		assertThat(permitted(limiter, "k", 4)).as("each permit returned exactly once").isEqualTo(3);
	}

	@Test
	void aKeysLimitGoesOnUnderNewAdaptiveSettingsWithinTheirBounds() {
		RateLimiterRegistry registry = registry(adaptive(10, 1, 200));
		RateLimiter limiter = registry.get("partner");
		probe(limiter, "k");
		Permit permit = limiter.acquire("k", 1);
		this.ticker.advance(CALL);
		permit.recordDrop();
		permit.close();
		assertThat(limiter.inspect("k").getMaxConcurrent()).isEqualTo(9);

		registry.updateSettings("partner", RateLimiterSettings.builder()
			.adaptiveConcurrency(new AdaptiveConcurrencySettings(Algorithm.AIMD, 10, 1, 200), LEASE)
			.build());
		assertThat(limiter.inspect("k").getMaxConcurrent()).as("probing under the new settings").isEqualTo(1);
		probe(limiter, "k");
		assertThat(limiter.inspect("k").getMaxConcurrent()).as("the limit learned is kept").isEqualTo(9);
		registry.updateSettings("partner", adaptive(5, 1, 6));
		probe(limiter, "k");
		assertThat(limiter.inspect("k").getMaxConcurrent()).as("within a lower max-limit").isEqualTo(6);
		assertThat(limiter.getSettings().maxConcurrent()).isEqualTo(6);
		registry.updateSettings("partner", adaptive(8, 7, 20));
		assertThat(limiter.inspect("k").getMaxConcurrent()).as("probing at the higher min-limit").isEqualTo(7);
		probe(limiter, "k");
		assertThat(limiter.inspect("k").getMaxConcurrent()).as("within a higher min-limit").isEqualTo(7);
		assertThat(limiter.inspect("other").getMaxConcurrent()).as("a new key probes at min-limit").isEqualTo(7);
		probe(limiter, "other");
		assertThat(limiter.inspect("other").getMaxConcurrent()).as("then is at initial-limit").isEqualTo(8);
	}

	@Test
	void noLimitToAdaptiveAndBackIsRefusedNamingBothAndTheOldSettingsStay() {
		RateLimiterSettings unlimited = RateLimiterSettings.builder().window(100, Duration.ofHours(1)).build();
		RateLimiterRegistry registry = registry(unlimited);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.updateSettings("partner",
				RateLimiterSettings.builder().window(100, Duration.ofHours(1))
					.adaptiveConcurrency(AdaptiveConcurrencySettings.DEFAULTS, LEASE).build()))
			.withMessageStartingWith("max-concurrent cannot change from 0 to adaptive at run time");
		assertThat(registry.get("partner").getSettings()).isSameAs(unlimited);

		RateLimiterRegistry adaptiveRegistry = registry(RateLimiterSettings.builder().window(100, Duration.ofHours(1))
			.adaptiveConcurrency(AdaptiveConcurrencySettings.DEFAULTS, LEASE).build());
		RateLimiterSettings before = adaptiveRegistry.get("partner").getSettings();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> adaptiveRegistry.updateSettings("partner",
					RateLimiterSettings.builder().window(100, Duration.ofHours(1)).build()))
			.withMessageStartingWith("max-concurrent cannot change from adaptive to 0 at run time");
		assertThat(adaptiveRegistry.get("partner").getSettings()).isSameAs(before);
	}

	/** Runs the key's probe at the latency of {@link #CALL}: its limit is then the one it goes on from. */
	private void probe(RateLimiter limiter, String key) {
		AdaptiveProbe.run(limiter, key, this.ticker::advance, CALL);
	}

	private RateLimiterRegistry registry(RateLimiterSettings settings) {
		return StoreRateLimiterRegistry.builder().ticker(this.ticker).limiter("partner", settings).build();
	}

	private static RateLimiterSettings fixed(int maxConcurrent) {
		return RateLimiterSettings.builder().maxConcurrent(maxConcurrent, LEASE).build();
	}

	private static RateLimiterSettings adaptive(int initial, int min, int max) {
		return RateLimiterSettings.builder()
			.adaptiveConcurrency(new AdaptiveConcurrencySettings(Algorithm.GRADIENT, initial, min, max), LEASE)
			.build();
	}

	/** How many of the calls are admitted at once, their permits kept. */
	private static int permitted(RateLimiter limiter, String key, int calls) {
		int permitted = 0;
		for (int i = 0; i < calls; i++) {
			try {
				limiter.acquire(key, 1);
				permitted++;
			}
			catch (RateLimitExceededException ex) {
				// the limit is reached
			}
		}
		return permitted;
	}

}
