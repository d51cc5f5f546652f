package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailurePolicy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis outage does not add the decision timeout to every call (docs/redis.md), blocking and async,
 * against a real {@code redis-server} killed or frozen ({@code SIGSTOP}): once the first decisions
 * have found the outage out, decisions follow on-store-failure at once, every one counted as a
 * store error; limiting resumes within seconds of Redis's return, its counts exact.
 */
class RedisOutageTests {

	/**
	 * Long enough that "at once" (20 decisions, an async call's return) is told from "waited the
	 * timeout" on a loaded 2-core machine, where a few garbage collections can take 100 ms.
	 */
	private static final Duration TIMEOUT = Duration.ofMillis(500);

	/** What the first decision may take beyond the timeout on a busy machine. */
	private static final Duration MARGIN = Duration.ofMillis(1000);

	/** How soon after Redis is back limiting resumes, reconnecting included. */
	private static final Duration RESUMED_WITHIN = Duration.ofSeconds(3);

	/** The bucket's capacity, the tightest of the limiter's constraints. */
	private static final int LIMIT = 5;

	private final RedisServer server = RedisServer.start();

	private final RedisRateLimitStore store = new RedisRateLimitStore("outage", RateLimiterSettings.builder()
		.store(RedisRateLimitStore.TYPE)
		// the limiter: a bucket and two windows
		.tokenBucket(LIMIT, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
		.window(10, Duration.ofMinutes(10))
		.window(20, Duration.ofHours(1))
		.onStoreFailure(StoreFailurePolicy.FAIL_CLOSED)
		.build(), this.server.runner(), "outage:", TIMEOUT);

	@AfterEach
	void stop() {
		this.server.close();
	}

	/** A decision of cost 1 on the key {@code k}, by the blocking or the async path. */
	enum Path {

		BLOCKING {
			@Override
			RateLimitDecision decide(RedisRateLimitStore store) {
				return store.tryAcquire("k", 1);
			}
		},

		ASYNC {
			@Override
			RateLimitDecision decide(RedisRateLimitStore store) {
				long start = System.nanoTime();
				CompletableFuture<Reservation> reservation = store.reserveAsync("k", 1, 0);
				// the call returns at once, however long Redis takes
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.dividedBy(2));
				return reservation.join().getDecision();
			}
		};

		abstract RateLimitDecision decide(RedisRateLimitStore store);

	}

	@ParameterizedTest
	@EnumSource(Path.class)
	void killedRedisIsDecidedAtOnceAndLimitingResumesWhenItIsBack(Path path) {
		assertThat(path.decide(this.store).isPermitted()).isTrue();
		this.server.kill();
		// the first few may still meet the connection as it breaks
		for (int i = 0; i < 3; i++) {
			long start = System.nanoTime();
			assertThat(path.decide(this.store).isPermitted()).isFalse();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plus(MARGIN));
		}
		assertOutageDecidedAtOnce(path, 3);
		this.server.launch();
		// a new server without persistence starts empty: the key starts afresh, and exactly
		assertThat(admittedOnceResumed(path)).isEqualTo(LIMIT);
	}

	@ParameterizedTest
	@EnumSource(Path.class)
	void frozenRedisIsFoundOutOnceAndLimitingResumesWhenItContinues(Path path) {
		assertThat(path.decide(this.store).isPermitted()).isTrue();
		assertThat(path.decide(this.store).isPermitted()).isTrue();
		this.server.freeze();
		// the first decision finds it out, waiting the timeout
		long start = System.nanoTime();
		assertThat(path.decide(this.store).isPermitted()).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(TIMEOUT, TIMEOUT.plus(MARGIN));
		assertOutageDecidedAtOnce(path, 1);
		this.server.thaw();
		// the decisions sent while it was frozen ran late, after their deadline: they took nothing
		assertThat(admittedOnceResumed(path)).isEqualTo(LIMIT - 2);
	}

	/** 20 decisions in less than one timeout, each failing closed, each counted. */
	private void assertOutageDecidedAtOnce(Path path, long errorsBefore) {
		assertThat(this.store.errorCount()).isEqualTo(errorsBefore);
		long start = System.nanoTime();
		for (int i = 0; i < 20; i++) {
			RateLimitDecision decision = path.decide(this.store);
			assertThat(decision.isPermitted()).isFalse();
			assertThat(decision.getRetryAfter()).isEqualTo(RedisRateLimitStore.FAILURE_RETRY_AFTER);
		}
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT);
		assertThat(this.store.errorCount()).isEqualTo(errorsBefore + 20);
	}

	/**
	 * Decides every 10 ms until Redis decides again (no store error), which must happen within
	 * {@link #RESUMED_WITHIN}, then until the first rejection: how many calls were admitted.
	 */
	private int admittedOnceResumed(Path path) {
		long back = System.nanoTime();
		int admitted = 0;
		while (true) {
			long errors = this.store.errorCount();
			RateLimitDecision decision = path.decide(this.store);
			if (this.store.errorCount() == errors) {
				admitted += decision.isPermitted() ? 1 : 0;
				break;
			}
			assertThat(Duration.ofNanos(System.nanoTime() - back)).as("limiting resumed").isLessThan(RESUMED_WITHIN);
			sleep(10);
		}
		assertThat(Duration.ofNanos(System.nanoTime() - back)).as("limiting resumed").isLessThan(RESUMED_WITHIN);
		long errors = this.store.errorCount();
		while (path.decide(this.store).isPermitted()) {
			admitted++;
		}
		assertThat(this.store.errorCount()).isEqualTo(errors);
		return admitted;
	}

	private static void sleep(long millis) {
		try {
			TimeUnit.MILLISECONDS.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
