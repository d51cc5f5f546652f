package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.WindowAlgorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests {@link RateLimiterRegistry#updateSettings}: new settings apply from the next decision,
 * each key keeps its state, and a change of what a key's state is made of is refused.
 */
class RateLimiterSettingsUpdateTests {

	private final ManualTicker ticker = new ManualTicker();

	@Test
	void aRaisedWindowLimitAdmitsOnlyTheDifferenceOverTheEntriesKept() {
		RateLimiter limiter = registry(RateLimiterSettings.builder().window(3, Duration.ofHours(1)).build())
			.get("partner");
		assertThat(permitted(limiter, "k", 5)).isEqualTo(3);
		updateSettings(limiter, RateLimiterSettings.builder().window(5, Duration.ofHours(1)).build());
		assertThat(permitted(limiter, "k", 5)).isEqualTo(2);
		assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(5);
	}

	@Test
	void aLoweredWindowLimitRejectsUntilTheEntriesKeptLeave() {
		RateLimiter limiter = registry(RateLimiterSettings.builder().window(5, Duration.ofMinutes(1)).build())
			.get("partner");
		assertThat(permitted(limiter, "k", 4)).isEqualTo(4);
		updateSettings(limiter, RateLimiterSettings.builder().window(2, Duration.ofMinutes(1)).build());
		assertThat(permitted(limiter, "k", 3)).isZero();
		this.ticker.advance(Duration.ofMinutes(1));
		assertThat(permitted(limiter, "k", 3)).isEqualTo(2);
	}

	@Test
	void aBucketKeepsItsTokensAndHoldsNoMoreThanALowerCapacity() {
		RateLimiter limiter = registry(bucket(10)).get("partner");
		assertThat(permitted(limiter, "k", 2)).isEqualTo(2);
		updateSettings(limiter, bucket(20));
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(8);
		updateSettings(limiter, bucket(5));
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(5);
		assertThat(permitted(limiter, "k", 6)).isEqualTo(5);
	}

	@Test
	void aNewMaxWaitAppliesToTheNextCall() {
		RateLimiter limiter = registry(RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.get("partner");
		assertThat(limiter.getSettings().maxWait()).isZero();
		updateSettings(limiter, RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).maxWait(Duration.ofSeconds(2)).build());
		assertThat(limiter.getSettings().maxWait()).isEqualTo(Duration.ofSeconds(2));
		limiter.tryAcquire("k", 1);
		Reservation reservation = limiter.reserve("k", 1, limiter.getSettings().maxWait());
		assertThat(reservation.getDecision().isPermitted()).isTrue();
		assertThat(reservation.getDecision().getWait()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void aChangeOfWhatAKeysStateIsMadeOfIsRefusedAndTheOldSettingsStay() {
		RateLimiterRegistry registry = registry(RateLimiterSettings.builder().window(3, Duration.ofHours(1)).build());
		RateLimiter limiter = registry.get("partner");
		RateLimiterSettings before = limiter.getSettings();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.updateSettings("partner",
					RateLimiterSettings.builder().window(3, Duration.ofHours(1)).window(10, Duration.ofDays(1)).build()))
			.withMessageStartingWith("windows cannot change from 1 windows to 2 windows at run time");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.updateSettings("partner", RateLimiterSettings.builder()
				.window(3, Duration.ofHours(1))
				.tokenBucket(5, 5, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.build()))
			.withMessageStartingWith("token-bucket cannot change from none to set at run time");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.updateSettings("partner", RateLimiterSettings.builder()
				.window(3, Duration.ofHours(1))
				.windowAlgorithm(WindowAlgorithm.COUNTER)
				.build()))
			.withMessageStartingWith("window-algorithm cannot change from LOG to COUNTER at run time");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.updateSettings("partner", RateLimiterSettings.builder()
				.window(3, Duration.ofHours(1))
				.maxConcurrent(2, Duration.ofMinutes(1))
				.build()))
			.withMessageStartingWith("max-concurrent cannot change from 0 to 2 at run time");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.updateSettings("nobody", before))
			.withMessageContaining("No rate limiter named 'nobody'");
		assertThat(limiter.getSettings()).isSameAs(before);
		assertThat(permitted(limiter, "k", 4)).isEqualTo(3);
	}

	@Test
	void aStoreThatCannotChangeItsSettingsRefusesTheChange() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			// A store of its own that keeps the default: it cannot change its settings.
			.store("fixed",
					(name, settings, ticker) -> new ForwardingStore("fixed", new InMemoryRateLimitStore(name, settings, ticker)))
			.limiter("partner", RateLimiterSettings.builder().store("fixed").window(3, Duration.ofHours(1)).build())
			.build();
		RateLimiter limiter = registry.get("partner");
		assertThatIllegalStateException()
			.isThrownBy(() -> registry.updateSettings("partner",
					RateLimiterSettings.builder().store("fixed").window(5, Duration.ofHours(1)).build()))
			.withMessage("the fixed store of rate limiter 'partner' cannot change its settings at run time");
		assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(3);
		assertThat(permitted(limiter, "k", 4)).isEqualTo(3);
	}

	/**
	 * Sixteen threads take permits of one key while the limit is raised from 1,000 to 2,000: as the
	 * window keeps its entries, exactly 2,000 calls are admitted in all, however the calls and the
	 * change interleave.
	 */
	@Test
	void aLimitRaisedUnderTrafficAdmitsExactlyTheNewLimitInAll() throws Exception {
		RateLimiterRegistry registry = registry(RateLimiterSettings.builder().window(1000, Duration.ofHours(1)).build());
		RateLimiter limiter = registry.get("partner");
		int threads = 16;
		AtomicBoolean changed = new AtomicBoolean();
		AtomicInteger permitted = new AtomicInteger();
		CountDownLatch halfway = new CountDownLatch(500);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> calls = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				calls.add(executor.submit(() -> {
					int after = 0;
					while (after < 300) {
						boolean wasChanged = changed.get();
						if (limiter.tryAcquire("k", 1).isPermitted()) {
							permitted.incrementAndGet();
							halfway.countDown();
						}
						if (wasChanged) {
							after++;
						}
					}
				}));
			}
			assertThat(halfway.await(30, TimeUnit.SECONDS)).isTrue();
			registry.updateSettings("partner", RateLimiterSettings.builder().window(2000, Duration.ofHours(1)).build());
			changed.set(true);
			for (Future<?> call : calls) {
				call.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(permitted.get()).isEqualTo(2000);
		assertThat(limiter.inspect("k").getRemaining()).isZero();
	}

	private RateLimiterRegistry registry(RateLimiterSettings settings) {
		return StoreRateLimiterRegistry.builder().ticker(this.ticker).limiter("partner", settings).build();
	}

	private static RateLimiterSettings bucket(long capacity) {
		return RateLimiterSettings.builder()
			.tokenBucket(capacity, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.build();
	}

	private static void updateSettings(RateLimiter limiter, RateLimiterSettings settings) {
		((StoreRateLimiter) limiter).updateSettings(settings);
	}

	private static int permitted(RateLimiter limiter, String key, int calls) {
		int permitted = 0;
		for (int i = 0; i < calls; i++) {
			if (limiter.tryAcquire(key, 1).isPermitted()) {
				permitted++;
			}
		}
		return permitted;
	}

}
