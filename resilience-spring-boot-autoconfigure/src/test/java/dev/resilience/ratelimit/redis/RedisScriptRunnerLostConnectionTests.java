package dev.resilience.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.redis.RedisScriptRunner.RedisUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What {@link RedisScriptRunner} does with a command once its connection is lost, against a real
 * {@code redis-server} that is killed.
 */
class RedisScriptRunnerLostConnectionTests {

	private final RedisServer server = RedisServer.start();

	@AfterEach
	void stop() {
		this.server.close();
	}

	@Test
	void commandWhileTheConnectionIsLostFailsAtOnce() {
		RedisScriptRunner runner = this.server.runner();
		byte[][] keys = { "lost-connection:k".getBytes(StandardCharsets.UTF_8) };
		assertThat(runner.unlink(keys, TimeUnit.SECONDS.toNanos(5))).succeedsWithin(Duration.ofSeconds(5));
		this.server.kill();

		// Lettuce sees the connection close and tries to reconnect; meanwhile a command is not held
		// for it, but fails before it is sent
		await().pollInSameThread().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			CompletableFuture<Long> unlinked = runner.unlink(keys, TimeUnit.SECONDS.toNanos(5));
			assertThat(unlinked.isDone()).isTrue();
			assertThat(unlinked).failsWithin(Duration.ZERO)
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(RedisUnavailableException.class)
				.withMessage("Redis is out: connection lost, reconnecting");
		});
	}

}
