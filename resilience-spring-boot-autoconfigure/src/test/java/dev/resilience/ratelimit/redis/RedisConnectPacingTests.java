package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.StoreFailurePolicy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connection attempts to a Redis that accepts connections and drops them at once (issue 36's
 * reproduction: 747 attempts in 3 s) are paced, before the first connection as after a working one
 * was lost, while every decision follows {@code on-store-failure} at once. Real time, so the bounds
 * are loose: paced, the attempts in 3 s are about 15; unpaced, hundreds. {@link ConnectPacingTests}
 * checks the exact gaps.
 */
class RedisConnectPacingTests {

	private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(200);

	private static final Duration DECIDING = Duration.ofSeconds(3);

	private final List<RedisClient> clients = new CopyOnWriteArrayList<>();

	@AfterEach
	void shutDown() {
		this.clients.forEach((client) -> client.shutdown(Duration.ZERO, Duration.ofSeconds(1)));
	}

	@Test
	void attemptsToConnectToARedisThatDropsEveryConnectionArePacedWhileDecisionsFailOpenAtOnce() throws Exception {
		try (DroppingProxy redis = new DroppingProxy()) {
			RedisScriptRunner runner = new RedisScriptRunner(() -> connect(redis.port()), CONNECT_TIMEOUT);
			RedisRateLimitStore store = store(runner);
			// the first attempt loads Lettuce and Netty, which takes seconds on a busy machine
			long loaded = System.nanoTime() + Duration.ofSeconds(60).toNanos();
			while (redis.accepted() == 0 && System.nanoTime() - loaded < 0) {
				store.tryAcquire("k", 1);
			}
			int before = redis.accepted();
			int decisions = decideFor(store, DECIDING);
			assertThat(decisions).isGreaterThan(100);
			// paced: about 15 (gaps of 100 ms, then 200 ms); unpaced: hundreds
			assertThat(redis.accepted() - before).isBetween(1, 30);
		}
	}

	@Test
	void attemptsToReconnectAfterAWorkingConnectionWasLostArePaced() throws Exception {
		try (RedisServer server = RedisServer.start(); DroppingProxy redis = new DroppingProxy(server.port())) {
			RedisScriptRunner runner = new RedisScriptRunner(() -> connect(redis.port()), CONNECT_TIMEOUT);
			assertThat(runner.connect(Duration.ofSeconds(30))).isTrue();
			RedisRateLimitStore store = store(runner);
			assertThat(store.tryAcquire("k", 1).getRemaining()).isEqualTo(999);
			int before = redis.accepted();
			redis.drop();
			int decisions = decideFor(store, DECIDING);
			assertThat(decisions).isGreaterThan(100);
			// Lettuce reconnects by itself, with its own growing delay (ClientResources' reconnectDelay)
			assertThat(redis.accepted() - before).isBetween(1, 30);
		}
	}

	/** Decides in a loop for a while, each decision failing open at once; how many it made. */
	private static int decideFor(RedisRateLimitStore store, Duration time) {
		int decisions = 0;
		long end = System.nanoTime() + time.toNanos();
		while (System.nanoTime() - end < 0) {
			RateLimitDecision decision = store.tryAcquire("k", 1);
			assertThat(decision.isPermitted()).isTrue();
			decisions++;
		}
		return decisions;
	}

	private static RedisRateLimitStore store(RedisScriptRunner runner) {
		return new RedisRateLimitStore("pacing", RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.tokenBucket(1000, 1, Duration.ofHours(1), RefillStrategy.GREEDY)
			.onStoreFailure(StoreFailurePolicy.FAIL_OPEN)
			.build(), runner, "pacing:", Duration.ofMillis(200));
	}

	/** Connects as Spring Data Redis's Lettuce factory would, with the connect timeout. */
	private RedisClusterAsyncCommands<byte[], byte[]> connect(int port) {
		RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
		client.setOptions(ClientOptions.builder()
			.socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
			.build());
		this.clients.add(client);
		return client.connect(ByteArrayCodec.INSTANCE).async();
	}

}
