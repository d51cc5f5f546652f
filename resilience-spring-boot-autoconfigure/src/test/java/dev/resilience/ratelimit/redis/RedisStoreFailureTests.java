package dev.resilience.ratelimit.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitDecision.Quota;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreFailurePolicy;
import dev.resilience.ratelimit.StoreStatus;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis store whose server cannot be reached, or does not answer: quick versions of the fault
 * tests (those kill and freeze a real server), for the paths every failure takes.
 */
class RedisStoreFailureTests {

	private static final List<RedisClient> clients = new ArrayList<>();

	@AfterAll
	static void shutdown() {
		clients.forEach((client) -> client.shutdown(0, 1, TimeUnit.SECONDS));
	}

	private static RedisClusterAsyncCommands<byte[], byte[]> connectTo(int port) {
		RedisClient client = RedisClient.create(RedisURI.builder()
			.withHost("127.0.0.1")
			.withPort(port)
			.withTimeout(Duration.ofSeconds(5))
			.build());
		clients.add(client);
		return client.connect(ByteArrayCodec.INSTANCE).async();
	}

	private static RateLimiter limiter(RedisScriptRunner runner, StoreFailurePolicy policy, Duration timeout) {
		return StoreRateLimiterRegistry.builder()
			.store(RedisRateLimitStore.TYPE, RedisServer.stores(runner, "failure:", timeout))
			.limiter("partner", RateLimiterSettings.builder()
				.store(RedisRateLimitStore.TYPE)
				.tokenBucket(10, 1, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.window(5, Duration.ofSeconds(5))
				.onStoreFailure(policy)
				.build())
			.build()
			.get("partner");
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	@Test
	void unreachableRedisFailsOpenCountingEachFailure() throws IOException {
		int port = closedPort();
		RateLimiter limiter = limiter(new RedisScriptRunner(() -> connectTo(port)), StoreFailurePolicy.FAIL_OPEN,
				Duration.ofSeconds(5));
		RateLimitDecision decision = limiter.tryAcquire("k", 1);
		assertThat(decision.isPermitted()).isTrue();
		assertThat(decision.getRetryAfter()).isZero();
		assertThat(decision.getQuotas()).containsExactly(
				new Quota(Quota.Type.TOKEN_BUCKET, 10, Duration.ofSeconds(10), 10, Duration.ZERO),
				new Quota(Quota.Type.WINDOW, 5, Duration.ofSeconds(5), 5, Duration.ZERO));
		Reservation reservation = limiter.reserve("k", 1, Duration.ZERO);
		assertThat(reservation.getDecision().isPermitted()).isTrue();
		reservation.cancel();
		assertThat(limiter.inspect("k").isPermitted()).isTrue();
		assertThat(limiter.getStoreErrors()).isEqualTo(3);
		StoreStatus status = limiter.checkStoreStatus();
		assertThat(status.reachable()).isFalse();
		assertThat(status.errors()).isEqualTo(3);
		assertThat(status.error()).isNotBlank();
		assertThat(limiter.getStoreType()).isEqualTo("redis");
	}

	@Test
	void unreachableRedisFailsClosedWithARetryAfter() throws IOException {
		int port = closedPort();
		RateLimiter limiter = limiter(new RedisScriptRunner(() -> connectTo(port)), StoreFailurePolicy.FAIL_CLOSED,
				Duration.ofSeconds(5));
		RateLimitDecision decision = limiter.tryAcquire("k", 1);
		assertThat(decision.isPermitted()).isFalse();
		assertThat(decision.isConcurrencyLimited()).isFalse();
		assertThat(decision.getRetryAfter()).isEqualTo(RedisRateLimitStore.FAILURE_RETRY_AFTER);
		assertThat(limiter.reserve("k", 1, Duration.ofSeconds(1)).getDecision().isPermitted()).isFalse();
		assertThat(limiter.getStoreErrors()).isEqualTo(2);
	}

	@Test
	void silentServerIsGivenUpOnAtTheDecisionTimeout() throws IOException {
		try (ServerSocket silent = new ServerSocket(0)) {
			List<Socket> accepted = new ArrayList<>();
			Thread acceptor = new Thread(() -> {
				try {
					while (true) {
						accepted.add(silent.accept());
					}
				}
				catch (IOException ex) {
					// closed
				}
			});
			acceptor.setDaemon(true);
			acceptor.start();
			RateLimiter limiter = limiter(new RedisScriptRunner(() -> connectTo(silent.getLocalPort())),
					StoreFailurePolicy.FAIL_CLOSED, Duration.ofMillis(100));
			for (int i = 0; i < 3; i++) {
				long start = System.nanoTime();
				assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			}
			assertThat(limiter.checkStoreStatus().reachable()).isFalse();
			assertThat(limiter.getStoreErrors()).isEqualTo(3);
			// an interrupted caller is back at once, decided by the policy, still interrupted
			Thread.currentThread().interrupt();
			assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
			assertThat(limiter.checkStoreStatus()).isEqualTo(new StoreStatus(false, 4, "interrupted"));
			assertThat(Thread.interrupted()).isTrue();
		}
	}

	@Test
	void storeAndReservationSayWhatTheyAre() {
		RedisScriptRunner runner = RedisServer.shared().runner();
		RedisRateLimitStore store = new RedisRateLimitStore("named", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.window(1, Duration.ofHours(1))
			.build(), runner, "failure-" + System.nanoTime() + ":", Duration.ofSeconds(5));
		assertThat(store).hasToString("RedisRateLimitStore[named]");
		assertThat(store.getType()).isEqualTo("redis");
		Reservation reservation = store.reserve("k", 1, 0);
		assertThat(reservation.toString()).startsWith("Reservation[RateLimitDecision[limiter=named, permitted=true");
		reservation.cancel();
	}

	@Test
	void connectionIsOpenedOnceForConcurrentCallersAndAgainAfterAFailure() throws Exception {
		RedisServer server = RedisServer.shared();
		AtomicInteger attempts = new AtomicInteger();
		RedisScriptRunner runner = new RedisScriptRunner(() -> {
			if (attempts.incrementAndGet() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
			return server.connect();
		});
		assertThat(runner).hasToString("RedisScriptRunner[not connected]");
		RateLimiter limiter = limiter(runner, StoreFailurePolicy.FAIL_CLOSED, Duration.ofSeconds(5));
		// a decision never waits for a connection being opened: it fails at once, and starts an attempt
		assertThat(limiter.tryAcquire("k", 1).isPermitted()).isFalse();
		assertThat(runner.connect(Duration.ofSeconds(10))).isTrue();
		List<Thread> callers = new ArrayList<>();
		AtomicInteger admitted = new AtomicInteger();
		for (int i = 0; i < 8; i++) {
			Thread caller = new Thread(() -> {
				if (limiter.tryAcquire("k", 1).isPermitted()) {
					admitted.incrementAndGet();
				}
			});
			caller.start();
			callers.add(caller);
		}
		for (Thread caller : callers) {
			caller.join();
		}
		assertThat(admitted).hasValue(5);
		assertThat(attempts).hasValue(2);
		assertThat(runner).hasToString("RedisScriptRunner[connected]");
		runner.connectInBackground();
		assertThat(runner.connect(Duration.ofSeconds(1))).isTrue();
		assertThat(attempts).hasValue(2);
		assertThat(limiter.checkStoreStatus()).isEqualTo(new StoreStatus(true, 1, null));
	}

}
