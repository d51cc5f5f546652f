package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.Ticker;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailurePolicy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the continuations of asynchronous Redis decisions run, against a real {@code redis-server}
 * behind a proxy that holds its replies back: on the runner's scheduler (the application's
 * {@code resilienceScheduler}), whether Redis answers late or the decision timeout passes, never on
 * Lettuce's event loop ({@code lettuce-*}) or the JDK's delay thread
 * ({@code CompletableFutureDelayScheduler}), where a user's code would hold up every Redis command
 * of the application, or every timeout of the JVM.
 */
class RedisContinuationThreadTests {

	private static final String SCHEDULER = "resilience-scheduler-test-";

	private final AtomicInteger threads = new AtomicInteger();

	private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, (task) -> {
		Thread thread = new Thread(task, SCHEDULER + this.threads.incrementAndGet());
		thread.setDaemon(true);
		return thread;
	});

	private final RedisServer server = RedisServer.shared();

	private final DelayingProxy proxy;

	private final RedisClient client;

	private final RedisScriptRunner runner;

	RedisContinuationThreadTests() throws Exception {
		this.proxy = new DelayingProxy(this.server.port());
		this.client = RedisClient.create(RedisURI.create("127.0.0.1", this.proxy.port()));
		this.runner = RedisServer.warm(new RedisScriptRunner(() -> this.client.connect(ByteArrayCodec.INSTANCE).async(),
				Duration.ofSeconds(2), this.scheduler, Ticker.system()));
	}

	@AfterEach
	void close() throws Exception {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
		this.proxy.close();
		this.scheduler.shutdownNow();
	}

	private RedisRateLimitStore store(Duration decisionTimeout) {
		return new RedisRateLimitStore("threads", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(1000, Duration.ofMinutes(1))
			.maxConcurrent(10, Duration.ofMinutes(1))
			.onStoreFailure(StoreFailurePolicy.FAIL_OPEN)
			.build(), this.runner, "threads-" + System.nanoTime() + ":", decisionTimeout);
	}

	@Test
	void aContinuationOfADecisionRedisAnswersLateRunsOnTheScheduler() throws Exception {
		RedisRateLimitStore store = store(Duration.ofSeconds(30));
		this.proxy.delayReplies(Duration.ofMillis(300));
		CompletableFuture<Reservation> decided = store.reserveAsync("k", 1, 0);
		assertThat(decided).isNotDone();
		CompletableFuture<String> thread = decided.thenApply((reservation) -> {
			assertThat(reservation.getDecision().isPermitted()).isTrue();
			return Thread.currentThread().getName();
		});
		assertThat(thread.get(30, TimeUnit.SECONDS)).startsWith(SCHEDULER);
	}

	@Test
	void aContinuationOfADecisionThatTimesOutRunsOnTheScheduler() throws Exception {
		RedisRateLimitStore store = store(Duration.ofMillis(100));
		this.proxy.delayReplies(Duration.ofSeconds(2));
		CompletableFuture<Reservation> decided = store.reserveAsync("k", 1, 0);
		assertThat(decided).isNotDone();
		CompletableFuture<String> thread = decided.thenApply((reservation) -> {
			// fail-open: Redis did not answer in time
			assertThat(reservation.getDecision().isPermitted()).isTrue();
			return Thread.currentThread().getName();
		});
		assertThat(thread.get(30, TimeUnit.SECONDS)).startsWith(SCHEDULER);
		assertThat(store.errorCount()).isEqualTo(1);
	}

	@Test
	void aContinuationOfAPermitReturnRunsOnTheScheduler() throws Exception {
		RedisRateLimitStore store = store(Duration.ofSeconds(30));
		Reservation reservation = store.reserveAsync("k", 1, 0).get(30, TimeUnit.SECONDS);
		this.proxy.delayReplies(Duration.ofMillis(300));
		CompletableFuture<Void> released = reservation.releaseAsync();
		assertThat(released).isNotDone();
		assertThat(released.thenApply((done) -> Thread.currentThread().getName()).get(30, TimeUnit.SECONDS))
			.startsWith(SCHEDULER);
	}

}
