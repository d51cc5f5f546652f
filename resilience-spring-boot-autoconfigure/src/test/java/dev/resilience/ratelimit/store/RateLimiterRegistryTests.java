package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import dev.resilience.ManualTicker;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitDecision.Quota;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Several limiters on one call through the registry: all or nothing, slots aligned, listeners told. */
class RateLimiterRegistryTests {

	private final ManualTicker ticker = new ManualTicker();

	private final List<RateLimitDecision> decisions = new CopyOnWriteArrayList<>();

	private RateLimiterRegistry registry(RateLimiterSettings a, RateLimiterSettings b) {
		return StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.listener((limiter, decision) -> this.decisions.add(decision))
			.limiter("a", a)
			.limiter("b", b)
			.build();
	}

	@Test
	void acquireAllRejectedByLaterLimiterLeavesEarlierOneExactlyAsBefore() {
		RateLimiterRegistry registry = registry(RateLimiterSettings.builder()
			.tokenBucket(5, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.window(10, Duration.ofSeconds(1))
			.build(), RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		RateLimiter a = registry.get("a");
		registry.acquireAll(requests(registry, Duration.ZERO));
		assertThat(this.decisions).extracting(RateLimitDecision::getLimiterName).containsExactly("a", "b");
		this.decisions.clear();
		this.ticker.set(Duration.ofMillis(300));
		RateLimitDecision before = a.inspect("k");
		RateLimitExceededException ex = catchThrowableOfType(RateLimitExceededException.class,
				() -> registry.acquireAll(requests(registry, Duration.ZERO)));
		assertThat(ex.getLimiterName()).isEqualTo("b");
		assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofMillis(700));
		assertThat(a.inspect("k").getQuotas()).isEqualTo(before.getQuotas());
		assertThat(this.decisions).singleElement().satisfies((decision) -> {
			assertThat(decision.getLimiterName()).isEqualTo("b");
			assertThat(decision.isPermitted()).isFalse();
		});
		// the next call finds a as if the rejected one never happened, the earned 0.3 token included
		RateLimitDecision next = a.tryAcquire("k", 1);
		assertThat(next.isPermitted()).isTrue();
		assertThat(next.getQuotas()).extracting(Quota::remaining).containsExactly(3L, 8L);
		this.ticker.set(Duration.ofSeconds(1));
		assertThat(a.inspect("k").getQuotas()).extracting(Quota::remaining).containsExactly(4L, 9L);
	}

	@Test
	void acquireAllGivesBackEarlierConcurrencyPermitWhenLaterLimiterRejects() {
		RateLimiterSettings onePermit = RateLimiterSettings.builder().maxConcurrent(1, Duration.ofSeconds(10)).build();
		RateLimiterRegistry registry = registry(onePermit, onePermit);
		Permit b = registry.get("b").acquire("k", 1, Duration.ZERO);
		assertThat(catchThrowableOfType(RateLimitExceededException.class,
				() -> registry.acquireAll(requests(registry, Duration.ZERO)))
			.getLimiterName()).isEqualTo("b");
		assertThat(registry.get("a").inspect("k").getInFlight()).isZero();
		b.close();
		Permit both = registry.acquireAll(requests(registry, Duration.ZERO));
		assertThat(registry.get("a").inspect("k").getInFlight()).isEqualTo(1);
		assertThat(registry.get("b").inspect("k").getInFlight()).isEqualTo(1);
		both.close();
		assertThat(registry.get("a").inspect("k").getInFlight()).isZero();
		assertThat(registry.get("b").inspect("k").getInFlight()).isZero();
	}

	@Test
	void acquireAllAdmitsEveryLimiterAtTheLatestSlot() {
		RateLimiterRegistry registry = registry(RateLimiterSettings.builder()
			.tokenBucket(1, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.build(), RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build());
		registry.get("b").acquire("k", 1, Duration.ZERO);
		this.decisions.clear();
		Permit permit = registry.acquireAll(requests(registry, Duration.ofSeconds(2)));
		assertThat(permit.getWaited()).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.ticker.sleeps()).containsExactly(Duration.ofSeconds(1));
		// b made the call wait; a's share is taken when the call proceeds, and both report the call's wait
		assertThat(this.decisions).extracting(RateLimitDecision::getWait)
			.containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
		// a took its token at 1s, when the call proceeded, not at 0: its next token comes at 2s
		assertThat(registry.get("a").inspect("k").getQuotas()).containsExactly(
				new Quota(Quota.Type.TOKEN_BUCKET, 1, Duration.ofSeconds(1), 0, Duration.ofSeconds(1)));
	}

	@Test
	void listenersSeeRejectedTryAcquireOnce() {
		RateLimiterSettings one = RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build();
		RateLimiter a = registry(one, one).get("a");
		a.tryAcquire("k", 1);
		a.tryAcquire("k", 1);
		assertThat(this.decisions).extracting(RateLimitDecision::isPermitted).containsExactly(true, false);
	}

	@Test
	void listenersSeeEveryOutcomeOfASingleLimitersAcquire() {
		RateLimiterSettings one = RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build();
		RateLimiter a = registry(one, one).get("a");
		a.acquire("k", 1, Duration.ZERO).close();
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> a.acquire("k", 1, Duration.ZERO));
		a.acquire("k", 1, Duration.ofSeconds(1)).close();
		assertThat(this.decisions).extracting(RateLimitDecision::isPermitted, RateLimitDecision::getWait)
			.containsExactly(tuple(true, Duration.ZERO), tuple(false, Duration.ZERO), tuple(true, Duration.ofSeconds(1)));
	}

	@Test
	void listenersSeeASingleLimitersCallThatMayWaitButNeedNot() {
		RateLimiterSettings one = RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build();
		RateLimiter a = registry(one, one).get("a");
		a.acquire("k", 1, Duration.ofMillis(500)).close();
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> a.acquire("k", 1, Duration.ofMillis(500)));
		assertThat(this.decisions).extracting(RateLimitDecision::isPermitted, RateLimitDecision::getRetryAfter)
			.containsExactly(tuple(true, Duration.ZERO), tuple(false, Duration.ofSeconds(1)));
	}

	@Test
	void listenerThatSkipsAdmissionsWithoutWaitIsToldOnlyOfWaitsAndRejections() {
		List<RateLimitDecision> unusual = new CopyOnWriteArrayList<>();
		RateLimitListener skipping = new RateLimitListener() {

			@Override
			public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
				unusual.add(decision);
			}

			@Override
			public boolean admissionsWithoutWait() {
				return false;
			}

		};
		RateLimiter a = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.sleeper(this.ticker.sleeper())
			.listener(skipping)
			.listener((limiter, decision) -> this.decisions.add(decision))
			.limiter("a", RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.build()
			.get("a");
		a.tryAcquire("k", 1);
		a.tryAcquire("k", 1);
		a.acquire("k", 1, Duration.ofSeconds(1)).close();
		this.ticker.advance(Duration.ofSeconds(5));
		a.acquire("k", 1, Duration.ZERO).close();
		assertThat(this.decisions).extracting(RateLimitDecision::isPermitted, RateLimitDecision::getWait)
			.containsExactly(tuple(true, Duration.ZERO), tuple(false, Duration.ZERO), tuple(true, Duration.ofSeconds(1)),
					tuple(true, Duration.ZERO));
		assertThat(unusual).extracting(RateLimitDecision::isPermitted, RateLimitDecision::getWait)
			.containsExactly(tuple(false, Duration.ZERO), tuple(true, Duration.ofSeconds(1)));
	}

	@Test
	void registryListsItsLimitersInConfigurationOrderWithTheirStores() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.store("uncounted", (name, settings, ticker) -> uncounted(new InMemoryRateLimitStore(name, settings, ticker)))
			.limiter("b", RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.limiter("a", RateLimiterSettings.builder().store("uncounted").window(1, Duration.ofSeconds(1)).build())
			.build();
		assertThat(registry.getNames()).containsExactly("b", "a");
		assertThat(registry.getAll()).extracting(RateLimiter::getName, RateLimiter::getStoreType)
			.containsExactly(tuple("b", "memory"), tuple("a", "uncounted"));
	}

	@Test
	void limiterCountsItsKeysOnlyWhenItsStoreCanTell() {
		RateLimiterRegistry registry = StoreRateLimiterRegistry.builder()
			.ticker(this.ticker)
			.store("uncounted", (name, settings, ticker) -> uncounted(new InMemoryRateLimitStore(name, settings, ticker)))
			.limiter("memory", RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build())
			.limiter("uncounted", RateLimiterSettings.builder().store("uncounted").window(1, Duration.ofSeconds(1)).build())
			.build();
		for (RateLimiter limiter : registry.getAll()) {
			limiter.tryAcquire("x", 1);
			limiter.tryAcquire("y", 1);
			limiter.tryAcquire("", 1);
		}
		// the shared bucket is not a key
		assertThat(registry.get("memory").getKeyCount()).hasValue(2);
		assertThat(registry.get("uncounted").getKeyCount()).isEmpty();
	}

	@Test
	void resetForgetsOneKeyOfTheLimiter() {
		RateLimiterSettings one = RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build();
		RateLimiter a = registry(one, one).get("a");
		a.tryAcquire("k", 1);
		a.tryAcquire("other", 1);

		a.reset("k");

		assertThat(a.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(a.tryAcquire("other", 1).isPermitted()).isFalse();
	}

	@Test
	void unknownLimiterNameListsTheConfiguredOnes() {
		RateLimiterSettings one = RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build();
		assertThatIllegalArgumentException().isThrownBy(() -> registry(one, one).get("c"))
			.withMessage("No rate limiter named 'c'; configured under resilience.rate-limiters are [a, b]");
	}

	@Test
	void acquireAllNeedsAtLeastOneRequest() {
		RateLimiterSettings one = RateLimiterSettings.builder().window(1, Duration.ofSeconds(1)).build();
		assertThatIllegalArgumentException().isThrownBy(() -> registry(one, one).acquireAll(List.of()))
			.withMessage("at least one rate limit request is needed");
	}

	/** A store that cannot tell how many keys it holds. */
	private static RateLimitStore uncounted(RateLimitStore delegate) {
		return new ForwardingStore("uncounted", delegate) {

			@Override
			public OptionalLong keyCount() {
				return OptionalLong.empty();
			}

		};
	}

	private static List<RateLimitRequest> requests(RateLimiterRegistry registry, Duration maxWait) {
		return List.of(new RateLimitRequest(registry.get("a"), "k", 1, maxWait),
				new RateLimitRequest(registry.get("b"), "k", 1, maxWait));
	}

}
