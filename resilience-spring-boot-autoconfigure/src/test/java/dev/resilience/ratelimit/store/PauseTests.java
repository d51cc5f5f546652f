package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Pausing a key (SPEC §10) in the limiter and the in-memory store, on a manual clock: what a
 * paused key's calls are told, that they consume nothing, extension, caps, the spread of
 * resumptions, waiting out a pause within max-wait, and the listeners.
 */
class PauseTests extends AsyncFixture {

	private static final PauseOnThrottleSettings PAUSING = new PauseOnThrottleSettings(true, Set.of(429),
			Duration.ofSeconds(1), Duration.ofSeconds(30), 0);

	private final List<String> pauses = new ArrayList<>();

	private RateLimiter pausing(PauseOnThrottleSettings pausing, Duration maxWait) {
		return registry().listener(new RateLimitListener() {

			@Override
			public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
			}

			@Override
			public void onPause(RateLimiter limiter, String key, Duration pause, Throttle.Cause cause) {
				PauseTests.this.pauses.add(limiter.getName() + " " + key + " " + pause + " " + cause.tag());
			}

		})
			.limiter("api", RateLimiterSettings.builder()
				.window(5, Duration.ofHours(1))
				.maxWait(maxWait)
				.pauseOnThrottle(pausing)
				.build())
			.build()
			.get("api");
	}

	@Test
	void aPausedKeyIsRejectedWithTheRestOfThePauseAndConsumesNothing() {
		RateLimiter limiter = pausing(PAUSING, Duration.ZERO);
		limiter.tryAcquire("k", 1);

		limiter.pause("k", Duration.ofSeconds(10));
		this.ticker.advance(Duration.ofSeconds(4));

		for (int i = 0; i < 20; i++) {
			RateLimitDecision decision = limiter.tryAcquire("k", 1);
			assertThat(decision.isPermitted()).isFalse();
			assertThat(decision.isPaused()).isTrue();
			assertThat(decision.getPause()).isEqualTo(Duration.ofSeconds(6));
			assertThat(decision.getRetryAfter()).isEqualTo(Duration.ofSeconds(6));
			assertThat(decision.getRemaining()).isZero();
		}
		RateLimitExceededException rejected = catchThrowableOfType(RateLimitExceededException.class,
				() -> limiter.acquire("k", 1, Duration.ZERO));
		assertThat(rejected.getRetryAfter()).isEqualTo(Duration.ofSeconds(6));
		assertThat(limiter.inspect("k").getPause()).isEqualTo(Duration.ofSeconds(6));
		// other keys go on
		assertThat(limiter.tryAcquire("other", 1).isPermitted()).isTrue();

		this.ticker.advance(Duration.ofSeconds(6));
		assertThat(limiter.inspect("k").isPaused()).isFalse();
		// the one call before the pause is all the window holds: 4 left
		for (int i = 0; i < 4; i++) {
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
	}

	@Test
	void aLongerPauseExtendsAndAShorterOneNeverShortens() {
		RateLimiter limiter = pausing(PAUSING, Duration.ZERO);
		limiter.pause("k", Duration.ofSeconds(10));
		this.ticker.advance(Duration.ofSeconds(2));

		limiter.pause("k", Duration.ofSeconds(3));
		assertThat(limiter.inspect("k").getPause()).isEqualTo(Duration.ofSeconds(8));

		limiter.pause("k", Duration.ofSeconds(20));
		assertThat(limiter.inspect("k").getPause()).isEqualTo(Duration.ofSeconds(20));
	}

	@Test
	void aPauseIsCutToMaxPauseAndAThrottleWithoutAWaitTakesTheDefault() {
		RateLimiter limiter = pausing(PAUSING, Duration.ZERO);

		assertThat(limiter.pause("a", Throttle.retryAfter(Duration.ofHours(1)))).isEqualTo(Duration.ofSeconds(30));
		assertThat(limiter.inspect("a").getPause()).isEqualTo(Duration.ofSeconds(30));
		assertThat(limiter.pause("b", Throttle.unspecified())).isEqualTo(Duration.ofSeconds(1));
		assertThat(limiter.inspect("b").getPause()).isEqualTo(Duration.ofSeconds(1));
		limiter.pause("c", Duration.ofMinutes(5));
		assertThat(limiter.inspect("c").getPause()).isEqualTo(Duration.ofSeconds(30));
		assertThat(this.pauses).containsExactly("api a PT30S retry-after", "api b PT1S default", "api c PT30S manual");
	}

	@Test
	void resumptionsAreSpreadOverTheJitterTimesThePause() {
		RateLimiter limiter = pausing(new PauseOnThrottleSettings(true, Set.of(429), Duration.ofSeconds(1),
				Duration.ofMinutes(1), 0.5), Duration.ZERO);
		limiter.pause("k", Duration.ofSeconds(10));
		this.ticker.advance(Duration.ofSeconds(2));

		Set<Long> retryAfters = new HashSet<>();
		long lowest = Long.MAX_VALUE;
		long highest = Long.MIN_VALUE;
		for (int i = 0; i < 500; i++) {
			long retryAfter = limiter.tryAcquire("k", 1).getRetryAfter().toMillis();
			retryAfters.add(retryAfter);
			lowest = Math.min(lowest, retryAfter);
			highest = Math.max(highest, retryAfter);
		}
		// the rest of the pause (8 s) plus up to half the pause (5 s), spread over that range
		assertThat(lowest).isGreaterThanOrEqualTo(8_000).isLessThan(8_500);
		assertThat(highest).isLessThanOrEqualTo(13_000).isGreaterThan(12_500);
		assertThat(retryAfters).hasSizeGreaterThan(100);
		// inspecting tells the end of the pause itself
		assertThat(limiter.inspect("k").getRetryAfter()).isEqualTo(Duration.ofSeconds(8));
	}

	@Test
	void aCallWhoseMaxWaitCoversThePauseWaitsThenIsDecidedAsUsual() {
		RateLimiter limiter = pausing(PAUSING, Duration.ofSeconds(5));
		limiter.pause("k", Duration.ofSeconds(3));

		try (Permit permit = limiter.acquire("k", 1)) {
			assertThat(permit.getWaited()).isEqualTo(Duration.ofSeconds(3));
		}
		assertThat(this.ticker.sleeps()).containsExactly(Duration.ofSeconds(3));
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(4);
	}

	@Test
	void aCallWhoseMaxWaitDoesNotCoverThePauseIsRejectedAtOnce() {
		RateLimiter limiter = pausing(PAUSING, Duration.ofSeconds(2));
		limiter.pause("k", Duration.ofSeconds(3));

		RateLimitExceededException rejected = catchThrowableOfType(RateLimitExceededException.class,
				() -> limiter.acquire("k", 1));

		assertThat(rejected.getRetryAfter()).isEqualTo(Duration.ofSeconds(3));
		assertThat(rejected.getDecision().isPaused()).isTrue();
		assertThat(this.ticker.sleeps()).isEmpty();
	}

	@Test
	void anAsynchronousCallWaitsOutThePauseOnTheSchedulerThenIsDecided() {
		RateLimiter limiter = pausing(PAUSING, Duration.ofSeconds(5));
		limiter.pause("k", Duration.ofSeconds(3));

		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, this.scheduler);

		assertThat(waiting).isNotDone();
		assertThat(this.scheduler.delays()).containsExactly(Duration.ofSeconds(3));
		this.scheduler.runAll();
		assertThat(waiting).isCompleted();
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(4);
	}

	@Test
	void aPauseThatEndsLaterThanAWaitedForPauseSendsTheWaiterBackToWaitOrToBeRejected() {
		RateLimiter limiter = pausing(PAUSING, Duration.ofSeconds(5));
		limiter.pause("k", Duration.ofSeconds(3));
		CompletableFuture<Permit> waiting = limiter.acquireAsync("k", 1, this.scheduler);
		// while it waits, the partner asks for more: 10 s is beyond what is left of its 5 s
		limiter.pause("k", Duration.ofSeconds(10));

		this.scheduler.runAll();

		assertThat(failure(waiting)).isInstanceOf(RateLimitExceededException.class);
		assertThat(((RateLimitExceededException) failure(waiting)).getRetryAfter()).isEqualTo(Duration.ofSeconds(7));
		assertThat(limiter.inspect("k").getRemaining()).isZero(); // paused: nothing to show
		this.ticker.advance(Duration.ofSeconds(7));
		assertThat(limiter.inspect("k").getRemaining()).isEqualTo(5);
	}

	@Test
	void aLimiterThatDoesNotPauseRefusesToAndIsNeverPaused() {
		RateLimiter limiter = pausing(PauseOnThrottleSettings.DISABLED, Duration.ZERO);

		assertThatIllegalStateException().isThrownBy(() -> limiter.pause("k", Duration.ofSeconds(1)))
			.withMessageContaining("resilience.rate-limiters.api.pause-on-throttle.enabled=true");
		assertThat(failure(limiter.pauseAsync("k", Throttle.unspecified()))).isInstanceOf(IllegalStateException.class);
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(this.pauses).isEmpty();
	}

	@Test
	void turningPausingOffAtRunTimeIgnoresThePausesInForceAndOnAgainFindsThem() {
		RateLimiter limiter = pausing(PAUSING, Duration.ZERO);
		limiter.pause("k", Duration.ofSeconds(10));
		RateLimiterSettings off = RateLimiterSettings.builder()
			.window(5, Duration.ofHours(1))
			.pauseOnThrottle(PauseOnThrottleSettings.DISABLED)
			.build();
		((StoreRateLimiter) limiter).updateSettings(off);

		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();

		((StoreRateLimiter) limiter).updateSettings(RateLimiterSettings.builder()
			.window(5, Duration.ofHours(1))
			.pauseOnThrottle(PAUSING)
			.build());
		assertThat(limiter.tryAcquire("k", 1).isPaused()).isTrue();
	}

	@Test
	void aPauseMustBePositive() {
		RateLimiter limiter = pausing(PAUSING, Duration.ZERO);

		assertThatIllegalArgumentException().isThrownBy(() -> limiter.pause("k", Duration.ZERO))
			.withMessageContaining("positive");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.pause("k", Duration.ofSeconds(-1)));
	}

	@Test
	void resettingAKeyEndsItsPause() {
		RateLimiter limiter = pausing(PAUSING, Duration.ZERO);
		limiter.pause("k", Duration.ofSeconds(10));

		limiter.reset("k");

		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
	}

	@Test
	void aStoreThatCannotPauseIsRefusedForALimiterThatPauses() {
		RateLimiterSettings settings = RateLimiterSettings.builder()
			.window(5, Duration.ofHours(1))
			.pauseOnThrottle(PAUSING)
			.store("custom")
			.build();

		assertThatIllegalArgumentException()
			.isThrownBy(() -> StoreRateLimiterRegistry.builder()
				.store("custom", (name, limiterSettings, ticker) -> new ForwardingStore("custom",
						new InMemoryRateLimitStore(name, limiterSettings, ticker)))
				.limiter("api", settings)
				.build())
			.withMessageContaining("pause-on-throttle.enabled is true for rate limiter 'api'")
			.withMessageContaining("custom store cannot pause keys");
	}

}
