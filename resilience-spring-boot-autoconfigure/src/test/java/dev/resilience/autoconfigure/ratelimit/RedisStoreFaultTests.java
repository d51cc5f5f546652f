package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.StoreFailurePolicy;
import dev.resilience.ratelimit.redis.RedisRateLimitStore;
import dev.resilience.ratelimit.redis.RedisScriptRunner;
import dev.resilience.ratelimit.redis.RedisServer;
import dev.resilience.ratelimit.store.StoreContractTests;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis killed or frozen during a run, for real: every call is back within the decision timeout
 * and follows on-store-failure, the store reports itself unreachable, and once Redis is back the
 * limit holds again without a restart, no permit lost or doubled.
 */
class RedisStoreFaultTests {

	/** The decision timeout: no decision may time out while Redis answers, on a loaded machine either. */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	/** What a call may take beyond the timeout on a loaded machine (300 ms was not enough). */
	private static final Duration MARGIN = Duration.ofSeconds(2);

	private final RedisServer server = RedisServer.start();

	private final RedisScriptRunner runner = this.server.runner();

	@AfterEach
	void stop() {
		this.server.close();
	}

	private RateLimiter limiter(StoreFailurePolicy policy, int limit) {
		return StoreRateLimiterRegistry.builder()
			.store(RedisRateLimitStore.TYPE, RedisServer.stores(this.runner, "fault:", TIMEOUT))
			.limiter("partner", RateLimiterSettings.builder()
				.store(RedisRateLimitStore.TYPE)
				.window(limit, Duration.ofHours(1))
				.onStoreFailure(policy)
				.build())
			.build()
			.get("partner");
	}

	@Test
	void frozenRedisFailsClosedOnTimeAndLosesNoPermitWhenItContinues() {
		RateLimiter limiter = limiter(StoreFailurePolicy.FAIL_CLOSED, 20);
		for (int i = 0; i < 5; i++) {
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		this.server.freeze();
		for (int i = 0; i < 5; i++) {
			RateLimitDecision decision = timed(() -> limiter.tryAcquire("k", 1));
			assertThat(decision.isPermitted()).isFalse();
			assertThat(decision.getRetryAfter()).isPositive();
		}
		assertThat(limiter.checkStoreStatus().reachable()).isFalse();
		assertThat(limiter.getStoreErrors()).isGreaterThanOrEqualTo(5);
		this.server.thaw();
		awaitTrue(() -> limiter.checkStoreStatus().reachable());
		// the decisions sent while it was frozen ran late, after their deadline: they took nothing
		assertThat(admittedUntilRejected(limiter)).isEqualTo(15);
	}

	@Test
	void frozenRedisFailsOpenOnTimeAndCountsTheFailures() {
		RateLimiter limiter = limiter(StoreFailurePolicy.FAIL_OPEN, 3);
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isTrue();
		this.server.freeze();
		for (int i = 0; i < 5; i++) {
			assertThat(timed(() -> limiter.tryAcquire("k", 1)).isPermitted()).isTrue();
		}
		assertThat(limiter.getStoreErrors()).isEqualTo(5);
		this.server.thaw();
		awaitTrue(() -> limiter.checkStoreStatus().reachable());
		assertThat(admittedUntilRejected(limiter)).isEqualTo(2);
	}

	@Test
	void killedRedisFollowsTheFailurePolicyAndLimitingResumesWhenItIsBack() {
		RateLimiter open = limiter(StoreFailurePolicy.FAIL_OPEN, 3);
		assertThat(open.tryAcquire("k", 1).isPermitted()).isTrue();
		this.server.kill();
		for (int i = 0; i < 5; i++) {
			assertThat(timed(() -> open.tryAcquire("k", 1)).isPermitted()).isTrue();
		}
		assertThat(open.checkStoreStatus().reachable()).isFalse();
		assertThat(open.checkStoreStatus().error()).isNotBlank();
		this.server.launch();
		awaitTrue(() -> open.checkStoreStatus().reachable());
		// a new server without persistence starts empty: the key starts afresh, and exactly
		assertThat(admittedUntilRejected(open)).isEqualTo(3);
	}

	private static int admittedUntilRejected(RateLimiter limiter) {
		int admitted = 0;
		while (limiter.tryAcquire("k", 1).isPermitted()) {
			admitted++;
		}
		return admitted;
	}

	private static RateLimitDecision timed(java.util.function.Supplier<RateLimitDecision> call) {
		long start = System.nanoTime();
		RateLimitDecision decision = call.get();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plus(MARGIN));
		return decision;
	}

	private static void awaitTrue(BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("condition met within 20 s").isLessThan(deadline);
			StoreContractTests.sleep(50);
		}
	}

}
