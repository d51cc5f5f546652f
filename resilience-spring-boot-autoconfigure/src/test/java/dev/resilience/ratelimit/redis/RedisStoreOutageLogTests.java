package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailurePolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis server frozen (SIGSTOP) under a store: what the store and its runner log when an
 * outage starts and ends, a reset that fails, and a blocking caller interrupted while it waits,
 * whose decision Redis runs late and the store gives back.
 */
class RedisStoreOutageLogTests {

	private RedisServer server;

	private LogLines storeLog;

	private LogLines runnerLog;

	@BeforeEach
	void start() {
		this.server = RedisServer.start();
		this.storeLog = new LogLines(RedisRateLimitStore.class);
		this.runnerLog = new LogLines(RedisScriptRunner.class);
	}

	@AfterEach
	void stop() {
		this.runnerLog.close();
		this.storeLog.close();
		this.server.thaw();
		this.server.close();
	}

	private RedisRateLimitStore store(StoreFailurePolicy policy, Duration timeout) {
		return new RedisRateLimitStore("logged", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(5, Duration.ofHours(1))
			.onStoreFailure(policy)
			.build(), this.server.runner(), "outage-log:", timeout);
	}

	@Test
	void outageIsLoggedOnceWhenItStartsAndOnceWhenItEnds() {
		RedisRateLimitStore store = store(StoreFailurePolicy.FAIL_OPEN, Duration.ofMillis(200));
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		this.server.freeze();
		try {
			// the first caller waits out the timeout, the next fails at once: one outage, logged once
			assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
			assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
			assertThat(store.errorCount()).isEqualTo(2);
		}
		finally {
			this.server.thaw();
		}
		awaitDecidedByRedis(store);
		// logged last, after the caller has its decision
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(this.storeLog.lines()).containsExactly(
					"WARNING Rate limiter 'logged': Redis decision failed, deciding FAIL_OPEN until it answers again: "
							+ "TimeoutException",
					"INFO Rate limiter 'logged': Redis answers again");
			assertThat(this.runnerLog.lines()).containsExactly(
					"WARNING Redis is out: TimeoutException; commands fail at once until it answers",
					"INFO Redis answers again");
		});
	}

	@Test
	void resetThatRedisDoesNotAnswerIsCountedAndLogged() {
		RedisRateLimitStore store = store(StoreFailurePolicy.FAIL_CLOSED, Duration.ofMillis(200));
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		this.server.freeze();
		try {
			store.reset("k");
			// the reset waited for its answer, or for the timeout
			assertThat(store.errorCount()).isEqualTo(1);
		}
		finally {
			this.server.thaw();
		}
		assertThat(this.storeLog.lines()).containsExactly(
				"WARNING Rate limiter 'logged': Redis reset failed, deciding FAIL_CLOSED until it answers again: "
						+ "TimeoutException");
	}

	@Test
	void giveBackAndPermitReturnThatRedisDoesNotAnswerAreCountedAndTheFirstLogged() {
		RedisRateLimitStore store = new RedisRateLimitStore("logged", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(5, Duration.ofHours(1))
			.maxConcurrent(2, Duration.ofHours(1))
			.build(), this.server.runner(), "outage-log:", Duration.ofMillis(200));
		Reservation cancelled = store.reserve("k", 1, 0);
		Reservation released = store.reserve("k", 1, 0);
		assertThat(cancelled.getDecision().isPermitted()).isTrue();
		assertThat(released.getDecision().isPermitted()).isTrue();
		this.server.freeze();
		try {
			// each waits for its answer, or for the timeout
			cancelled.cancel();
			assertThat(store.errorCount()).isEqualTo(1);
			released.release();
			assertThat(store.errorCount()).isEqualTo(2);
		}
		finally {
			this.server.thaw();
		}
		assertThat(this.storeLog.lines()).containsExactly(
				"WARNING Rate limiter 'logged': Redis give-back failed, deciding FAIL_OPEN until it answers again: "
						+ "TimeoutException");
	}

	@Test
	void interruptedCallerIsBackAtOnceAndTheDecisionRedisRanLateIsGivenBack() throws Exception {
		RedisRateLimitStore store = store(StoreFailurePolicy.FAIL_CLOSED, Duration.ofSeconds(10));
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		this.server.commands().configResetstat();
		AtomicReference<RateLimitDecision> decided = new AtomicReference<>();
		AtomicBoolean stillInterrupted = new AtomicBoolean();
		CompletableFuture<Long> took = new CompletableFuture<>();
		Thread caller = new Thread(() -> {
			long start = System.nanoTime();
			decided.set(store.tryAcquire("k", 1));
			stillInterrupted.set(Thread.currentThread().isInterrupted());
			took.complete(System.nanoTime() - start);
		});
		this.server.freeze();
		try {
			caller.start();
			// waiting for Redis's reply, which a frozen server does not send
			while (caller.getState() != Thread.State.TIMED_WAITING) {
				assertThat(caller.isAlive()).isTrue();
				Thread.onSpinWait();
			}
			caller.interrupt();
			assertThat(took.get(5, TimeUnit.SECONDS)).isLessThan(Duration.ofSeconds(5).toNanos());
		}
		finally {
			this.server.thaw();
		}
		assertThat(decided.get().isPermitted()).isFalse();
		assertThat(decided.get().getRetryAfter()).isEqualTo(RedisRateLimitStore.FAILURE_RETRY_AFTER);
		assertThat(stillInterrupted).isTrue();
		assertThat(store.errorCount()).isEqualTo(1);
		// Redis ran the decision in time once thawed and admitted it; nobody waits for it: given back
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(this.server.commandCalls("evalsha")).isEqualTo(2);
			// its reply ended the run of failures
			assertThat(this.storeLog.lines()).containsExactly(
					"WARNING Rate limiter 'logged': Redis decision failed, deciding FAIL_CLOSED until it answers again: "
							+ "InterruptedException",
					"INFO Rate limiter 'logged': Redis answers again");
		});
		assertThat(store.inspect("k").getQuotas().get(0).remaining()).isEqualTo(4);
		assertThat(store.errorCount()).isEqualTo(1);
	}

	/** Decides until Redis decides again: an outage ends at the first answer after it. */
	private static void awaitDecidedByRedis(RedisRateLimitStore store) {
		long start = System.nanoTime();
		while (true) {
			long errors = store.errorCount();
			store.tryAcquire("k", 1);
			if (store.errorCount() == errors) {
				return;
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("Redis answers again").isLessThan(Duration.ofSeconds(5));
			Thread.onSpinWait();
		}
	}

}
