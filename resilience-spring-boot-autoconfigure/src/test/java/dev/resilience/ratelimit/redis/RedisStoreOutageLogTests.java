package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailurePolicy;
import dev.resilience.ratelimit.StoreStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis server frozen (SIGSTOP) under a store: what the store and its runner log when an
 * outage starts and what ends it (a probe, an answer to an earlier command, a health check), a
 * reset, give-back or permit return that Redis does not answer, and a blocking caller interrupted
 * while it waits, whose decision Redis runs late and the store gives back.
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
		return store(policy, timeout, this.server.runner());
	}

	private static RedisRateLimitStore store(StoreFailurePolicy policy, Duration timeout, RedisScriptRunner runner) {
		return new RedisRateLimitStore("logged", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(5, Duration.ofHours(1))
			.onStoreFailure(policy)
			.build(), runner, "outage-log:", timeout);
	}

	@Test
	void outageIsLoggedOnceWhenItStartsAndOnceWhenItEnds() throws InterruptedException {
		RedisRateLimitStore store = store(StoreFailurePolicy.FAIL_OPEN, Duration.ofMillis(200));
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		this.server.freeze();
		try {
			// the first caller waits out the timeout, the next fails at once: one outage, logged once
			assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
			assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
			assertThat(store.errorCount()).isEqualTo(2);
			// the probe that call started is given up on at the timeout; the next call starts another
			Thread.sleep(3 * 200);
		}
		finally {
			this.server.thaw();
		}
		awaitDecidedByRedis(store, "k");
		// logged last, after the caller has its decision
		await().pollInSameThread().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(this.storeLog.lines()).containsExactly(
					"WARNING Rate limiter 'logged': Redis decision failed, deciding fail-open until it answers again: "
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
				"WARNING Rate limiter 'logged': Redis reset failed, deciding fail-closed until it answers again: "
						+ "TimeoutException");
	}

	@ParameterizedTest
	@CsvSource({ "give-back, false", "permit-return, true" })
	void giveBackOrPermitReturnThatRedisDoesNotAnswerIsCountedAndLogged(String what, boolean release) {
		RedisRateLimitStore store = new RedisRateLimitStore("logged", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.maxConcurrent(2, Duration.ofHours(1))
			.build(), this.server.runner(), "outage-log:", Duration.ofMillis(200));
		Reservation reservation = store.reserve("k", 1, 0);
		assertThat(reservation.getDecision().isPermitted()).isTrue();
		this.server.freeze();
		try {
			// waits for its answer, or for the timeout
			if (release) {
				reservation.release();
			}
			else {
				reservation.cancel();
			}
			assertThat(store.errorCount()).isEqualTo(1);
		}
		finally {
			this.server.thaw();
		}
		assertThat(this.storeLog.lines()).containsExactly("WARNING Rate limiter 'logged': Redis " + what
				+ " failed, deciding fail-open until it answers again: TimeoutException");
	}

	@Test
	void answerOfACommandSentBeforeTheOutageEndsIt() {
		// two limiters on one connection, one with a shorter decision timeout than the other
		RedisScriptRunner runner = this.server.runner();
		RedisRateLimitStore quick = new RedisRateLimitStore("quick", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(5, Duration.ofHours(1))
			.onStoreFailure(StoreFailurePolicy.FAIL_CLOSED)
			.build(), runner, "outage-log:", Duration.ofMillis(200));
		RedisRateLimitStore patient = new RedisRateLimitStore("patient", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(5, Duration.ofHours(1))
			.build(), runner, "outage-log:", Duration.ofSeconds(30));
		assertThat(quick.tryAcquire("k", 1).isPermitted()).isTrue();
		CompletableFuture<Reservation> pending;
		this.server.freeze();
		try {
			pending = patient.reserveAsync("k", 1, 0);
			// the quick store's decision finds the outage out
			assertThat(quick.tryAcquire("k", 1).isPermitted()).isFalse();
			assertThat(quick.errorCount()).isEqualTo(1);
		}
		finally {
			this.server.thaw();
		}
		assertThat(pending.join().getDecision().isPermitted()).isTrue();
		assertThat(patient.errorCount()).isZero();
		await().pollInSameThread().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.runnerLog.lines()).containsExactly(
					"WARNING Redis is out: TimeoutException; commands fail at once until it answers",
					"INFO Redis answers again"));
		// ended: decided by Redis at once, no probe needed
		assertThat(quick.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(quick.errorCount()).isEqualTo(1);
	}

	@Test
	void healthCheckThatRedisAnswersEndsTheOutage() {
		RedisRateLimitStore store = store(StoreFailurePolicy.FAIL_CLOSED, Duration.ofMillis(200));
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		this.server.freeze();
		try {
			// an UNLINK, whose answer after its timeout goes to nobody: unlike a late decision's
			// answer, it does not end the outage once Redis is thawed
			store.reset("k");
			assertThat(store.errorCount()).isEqualTo(1);
		}
		finally {
			this.server.thaw();
		}
		assertThat(store.checkStatus().reachable()).isTrue();
		// ended: decided by Redis at once, no probe needed
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		assertThat(store.errorCount()).isEqualTo(1);
		assertThat(this.runnerLog.lines()).containsExactly(
				"WARNING Redis is out: TimeoutException; commands fail at once until it answers",
				"INFO Redis answers again");
	}

	@Test
	void probeEndsAnOutageThatNoAnswerToAnEarlierCommandEnds() throws InterruptedException {
		RedisRateLimitStore store = store(StoreFailurePolicy.FAIL_CLOSED, Duration.ofMillis(200));
		assertThat(store.tryAcquire("k", 1).isPermitted()).isTrue();
		this.server.freeze();
		try {
			store.reset("k");
			// each fails at once; the first starts a probe, which the frozen server does not answer
			// either, and the others none while it is in flight
			for (int i = 0; i < 100; i++) {
				assertThat(store.tryAcquire("k", 1).isPermitted()).isFalse();
			}
			Thread.sleep(3 * 200);
			// a probe given up on ends nothing, and must not keep the next one from starting
			assertThat(this.runnerLog.lines())
				.containsExactly("WARNING Redis is out: TimeoutException; commands fail at once until it answers");
		}
		finally {
			this.server.thaw();
		}
		awaitDecidedByRedis(store, "k");
		// the one sent while frozen, and those of the decisions that found Redis back (one at a time)
		assertThat(this.server.commandCalls("exists")).isBetween(2L, 20L);
		await().pollInSameThread().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.runnerLog.lines()).containsExactly(
					"WARNING Redis is out: TimeoutException; commands fail at once until it answers",
					"INFO Redis answers again"));
	}

	@Test
	void healthCheckBeforeTheFirstCommandConnectsAndFindsRedisThere() {
		// a runner not warmed up: nothing has connected it yet
		RedisRateLimitStore store = store(StoreFailurePolicy.FAIL_OPEN, Duration.ofSeconds(30),
				new RedisScriptRunner(this.server::connect));
		assertThat(store.checkStatus()).isEqualTo(new StoreStatus(true, 0, null));
		assertThat(this.runnerLog.lines()).isEmpty();
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
		await().pollInSameThread().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			assertThat(this.server.commandCalls("evalsha")).isEqualTo(2);
			// its reply ended the run of failures
			assertThat(this.storeLog.lines()).containsExactly(
					"WARNING Rate limiter 'logged': Redis decision failed, deciding fail-closed until it answers again: "
							+ "InterruptedException",
					"INFO Rate limiter 'logged': Redis answers again");
		});
		assertThat(store.inspect("k").getQuotas().get(0).remaining()).isEqualTo(4);
		assertThat(store.errorCount()).isEqualTo(1);
	}

	/** Decides a key until its server decides again: an outage ends at the first answer after it. */
	static void awaitDecidedByRedis(RedisRateLimitStore store, String key) {
		long start = System.nanoTime();
		while (true) {
			long errors = store.errorCount();
			store.tryAcquire(key, 1);
			if (store.errorCount() == errors) {
				return;
			}
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("Redis answers again").isLessThan(Duration.ofSeconds(5));
			Thread.onSpinWait();
		}
	}

}
