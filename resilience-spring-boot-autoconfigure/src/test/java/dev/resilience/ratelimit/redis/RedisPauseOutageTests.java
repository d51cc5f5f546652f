package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.StoreFailurePolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A pause Redis does not store (SPEC §10), against a real {@code redis-server} frozen
 * ({@code SIGSTOP}) or killed: {@code pauseAsync} completes exceptionally on time without holding
 * its caller (BlockHound watches it), {@code pause} throws within the decision timeout, each
 * failure is counted as a store error and told to the listeners, no line or message names the key,
 * and a pause that reaches a frozen server after its caller gave up changes nothing.
 */
class RedisPauseOutageTests {

	/**
	 * The decision timeout: long enough that a caller returning at once is told apart from one held
	 * for it, and that no decision times out while Redis answers, on a loaded machine (300 ms was not).
	 */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	/** What a completion may take beyond the timeout on a loaded machine (300 ms was not enough). */
	private static final Duration MARGIN = Duration.ofSeconds(2);

	/** The key: no message or log line may name it. */
	private static final String KEY = "customer-4711";

	private final List<String> told = new CopyOnWriteArrayList<>();

	private RedisServer server;

	private RedisRateLimitStore store;

	private LogLines storeLog;

	@BeforeEach
	void start() {
		this.server = RedisServer.start();
		this.storeLog = new LogLines(RedisRateLimitStore.class);
		this.store = new RedisRateLimitStore("paused", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(5, Duration.ofHours(1))
			.onStoreFailure(StoreFailurePolicy.FAIL_CLOSED)
			.pauseOnThrottle(new PauseOnThrottleSettings(true, Set.of(429), Duration.ofSeconds(1), Duration.ofHours(2),
					0.1))
			.build(), this.server.runner(), "pause-outage:", TIMEOUT,
				List.of((limiter, store, operation, failure) -> this.told.add(limiter + " " + store + " " + operation)));
		// a decision first: the store learns the server's clock, which dates a command's deadline
		assertThat(this.store.tryAcquire(KEY, 1).isPermitted()).isTrue();
	}

	@AfterEach
	void stop() {
		this.storeLog.close();
		this.server.close();
	}

	@Test
	void pauseSentToAFrozenRedisFailsOnTimeWithoutHoldingItsCallerAndChangesNothingLater() throws Exception {
		// once connected: each class loaded after it passes BlockHound's transformer, which on a busy
		// machine made a first use of a path (logging, say) take longer than a decision timeout
		BlockHound.install();
		this.server.freeze();
		try {
			// on a Reactor thread that must never block: BlockHound fails the call if it does
			Sent sent = Mono.fromCallable(() -> {
				long called = System.nanoTime();
				CompletableFuture<Void> paused = this.store.pauseAsync(KEY, TimeUnit.HOURS.toNanos(1));
				return new Sent(paused, called, System.nanoTime() - called);
			}).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(5));
			assertThat(Duration.ofNanos(sent.callNanos())).isLessThan(TIMEOUT);
			assertThat(sent.paused()).isNotDone();
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> sent.paused().get(TIMEOUT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS))
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessage("Rate limiter 'paused': Redis did not store the pause: TimeoutException");
			assertThat(Duration.ofNanos(System.nanoTime() - sent.calledAt())).isBetween(TIMEOUT, TIMEOUT.plus(MARGIN));
			assertThat(this.store.errorCount()).isEqualTo(1);

			// Redis known to be out: the blocking pause fails at once, counted too
			long again = System.nanoTime();
			assertThatIllegalStateException().isThrownBy(() -> this.store.pause(KEY, TimeUnit.HOURS.toNanos(1)))
				.withMessageStartingWith("Rate limiter 'paused': Redis did not store the pause: Redis is out: ")
				.withMessageNotContaining(KEY);
			assertThat(Duration.ofNanos(System.nanoTime() - again)).isLessThan(TIMEOUT);
			assertThat(this.store.errorCount()).isEqualTo(2);
			assertThat(this.told).containsExactly("paused redis pause", "paused redis pause");
		}
		finally {
			this.server.thaw();
		}
		// The pause sent while Redis was frozen runs now, after its deadline: the caller was told it
		// failed, and it would begin late. The decision that finds Redis back comes after it on the
		// same connection, so it has run by then.
		RateLimitDecision resumed = decidedByRedis();
		assertThat(resumed.isPaused()).isFalse();
		assertThat(resumed.isPermitted()).isTrue();
		assertThat(this.server.keys("pause-outage:*:p")).isEmpty();
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.storeLog.lines()).hasSize(2)
				.allSatisfy((line) -> assertThat(line).doesNotContain(KEY))
				.first()
				.asString()
				.startsWith("WARNING Rate limiter 'paused': Redis pause failed"));
	}

	@Test
	void pauseOnAFrozenRedisThrowsWithinTheDecisionTimeout() {
		this.server.freeze();
		try {
			long start = System.nanoTime();
			Throwable failure = catchThrowable(() -> this.store.pause(KEY, TimeUnit.HOURS.toNanos(1)));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(TIMEOUT, TIMEOUT.plus(MARGIN));
			assertThat(failure).isInstanceOf(IllegalStateException.class)
				.hasMessage("Rate limiter 'paused': Redis did not store the pause: TimeoutException");
			assertThat(this.store.errorCount()).isEqualTo(1);
			assertThat(this.told).containsExactly("paused redis pause");
		}
		finally {
			this.server.thaw();
		}
	}

	@Test
	void pauseOnAKilledRedisFailsAndIsCounted() {
		this.server.kill();
		long start = System.nanoTime();
		assertThatIllegalStateException().isThrownBy(() -> this.store.pause(KEY, TimeUnit.HOURS.toNanos(1)))
			.withMessageNotContaining(KEY);
		CompletableFuture<Void> paused = this.store.pauseAsync(KEY, TimeUnit.HOURS.toNanos(1));
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> paused.get(TIMEOUT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS))
			.havingCause()
			.isInstanceOf(IllegalStateException.class)
			.withMessageNotContaining(KEY);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plus(MARGIN));
		assertThat(this.store.errorCount()).isEqualTo(2);
		assertThat(this.told).containsExactly("paused redis pause", "paused redis pause");
	}

	/** Decides every 10 ms until Redis decides (no store error), which must happen within about a second. */
	private RateLimitDecision decidedByRedis() throws InterruptedException {
		long back = System.nanoTime();
		while (true) {
			long errors = this.store.errorCount();
			RateLimitDecision decision = this.store.tryAcquire(KEY, 1);
			if (this.store.errorCount() == errors) {
				return decision;
			}
			// about a second once Redis is back; 3 s leaves room for a loaded machine
			assertThat(Duration.ofNanos(System.nanoTime() - back)).as("limiting resumed").isLessThan(Duration.ofSeconds(3));
			TimeUnit.MILLISECONDS.sleep(10);
		}
	}

	/** A pause sent, when, and how long sending it held its caller. */
	record Sent(CompletableFuture<Void> paused, long calledAt, long callNanos) {
	}

}
