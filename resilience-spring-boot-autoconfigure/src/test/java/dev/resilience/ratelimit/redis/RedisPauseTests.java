package dev.resilience.ratelimit.redis;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What only the Redis store promises of pauses (SPEC §10), against a real {@code redis-server} and
 * a cluster of three masters: a pause set by one instance holds for every instance sharing the
 * Redis, at its next decision and in that one round trip; its key shares the key's hash tag and
 * expires when the pause ends; a limiter that does not pause never reads it.
 */
class RedisPauseTests {

	private static final PauseOnThrottleSettings PAUSING = new PauseOnThrottleSettings(true, Set.of(429),
			Duration.ofSeconds(1), Duration.ofHours(2), 0.1);

	private static final RedisServer server = RedisServer.shared();

	private final String prefix = "pause-test-" + System.nanoTime() + ":";

	static Stream<Arguments> targets() {
		return Stream.of(Arguments.of(Named.of("server", new Target(server::runner, server::connect))),
				Arguments.of(Named.of("cluster",
						new Target(RedisServer.Cluster.shared()::runner,
								RedisServer.Cluster.shared()::connectToEveryMaster))));
	}

	/** A store of the limiter "partner", as one application instance has it, on a runner (connection) of its own. */
	private RedisRateLimitStore instance(Target target, RateLimiterSettings.Builder settings) {
		return new RedisRateLimitStore("partner", settings.store(RedisRateLimitStore.TYPE).build(), target.runner().get(),
				this.prefix, Duration.ofSeconds(2));
	}

	private static RateLimiterSettings.Builder pausingWindow() {
		return RateLimiterSettings.builder().window(5, Duration.ofHours(1)).pauseOnThrottle(PAUSING);
	}

	@ParameterizedTest
	@MethodSource("targets")
	void pauseSetByOneInstanceRejectsTheNextDecisionOfAnother(Target target) {
		RedisRateLimitStore one = instance(target, pausingWindow());
		RedisRateLimitStore other = instance(target, pausingWindow());
		assertThat(other.tryAcquire("customer-1", 1).isPermitted()).isTrue();

		one.pause("customer-1", TimeUnit.HOURS.toNanos(1));

		RateLimitDecision rejected = other.tryAcquire("customer-1", 1);
		assertThat(rejected.isPermitted()).isFalse();
		assertThat(rejected.isPaused()).isTrue();
		assertThat(rejected.getPause()).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));
		// the rest of the pause, and this caller's share of the spread: up to a tenth of the hour
		assertThat(rejected.getRetryAfter()).isBetween(rejected.getPause(), rejected.getPause().plusMinutes(6));
		RateLimitDecision reserved = other.reserveAsync("customer-1", 1, TimeUnit.MINUTES.toNanos(1)).join().getDecision();
		assertThat(reserved.isPaused()).isTrue();
		assertThat(reserved.isPermitted()).isFalse();
		RateLimitDecision state = other.inspect("customer-1");
		assertThat(state.isPaused()).isTrue();
		assertThat(state.getRetryAfter()).isEqualTo(state.getPause());
		assertThat(other.tryAcquire("customer-2", 1).isPermitted()).isTrue();
		assertThat(one.errorCount() + other.errorCount()).isZero();

		// a reset by either instance ends it for both, and the key took nothing while paused
		other.reset("customer-1");
		RateLimitDecision resumed = one.tryAcquire("customer-1", 1);
		assertThat(resumed.isPaused()).isFalse();
		assertThat(resumed.getRemaining()).isEqualTo(4);
	}

	@ParameterizedTest
	@MethodSource("targets")
	void pauseKeySharesTheKeysTagAndExpiresWhenThePauseEnds(Target target) {
		RedisRateLimitStore store = instance(target, pausingWindow());
		assertThat(store.tryAcquire("customer-1", 1).isPermitted()).isTrue();
		String tag = new RedisKeys(this.prefix, "partner", pausingWindow().build()).tag("customer-1");
		String pauseKey = this.prefix + "partner:{" + tag + "}:p";
		String stateKey = this.prefix + "partner:{" + tag + "}:s";
		assertThat(SlotHash.getSlot(pauseKey)).isEqualTo(SlotHash.getSlot(stateKey));
		PauseKey redis = new PauseKey(target.commands().get(), pauseKey.getBytes(StandardCharsets.UTF_8));
		assertThat(redis.pttl()).isEqualTo(-2);

		store.pause("customer-1", TimeUnit.SECONDS.toNanos(10));
		long first = redis.pttl();
		assertThat(first).isPositive().isLessThanOrEqualTo(10_000);
		assertThat(redis.pauseLengthMicros()).isEqualTo(10_000_000);

		// a shorter pause leaves it as it is, its expiry too
		store.pause("customer-1", TimeUnit.SECONDS.toNanos(3));
		assertThat(redis.pttl()).isGreaterThan(3_000).isLessThanOrEqualTo(first);
		assertThat(redis.pauseLengthMicros()).isEqualTo(10_000_000);

		// a longer one extends both
		store.pauseAsync("customer-1", TimeUnit.SECONDS.toNanos(30)).join();
		assertThat(redis.pttl()).isGreaterThan(10_000).isLessThanOrEqualTo(30_000);
		assertThat(redis.pauseLengthMicros()).isEqualTo(30_000_000);

		store.reset("customer-1");
		assertThat(redis.pttl()).isEqualTo(-2);
	}

	@Test
	void decisionOfAPausingLimiterReadsThePauseInItsOneScriptCallAndOneThatDoesNotPauseNever() {
		// a token bucket alone: its script reads the state with one GET
		RateLimiterSettings.Builder bucket = RateLimiterSettings.builder()
			.tokenBucket(100, 1, Duration.ofHours(1), RefillStrategy.GREEDY);
		RedisRateLimitStore plain = new RedisRateLimitStore("plain", bucket.store(RedisRateLimitStore.TYPE).build(),
				server.runner(), this.prefix, Duration.ofSeconds(2));
		RedisRateLimitStore pausing = new RedisRateLimitStore("pausing", bucket.pauseOnThrottle(PAUSING).build(),
				server.runner(), this.prefix, Duration.ofSeconds(2));
		plain.tryAcquire("warm", 1);
		pausing.tryAcquire("warm", 1);

		server.commands().configResetstat();
		for (int i = 0; i < 5; i++) {
			assertThat(plain.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		assertThat(server.commandCalls("evalsha")).isEqualTo(5);
		assertThat(server.commandCalls("get")).isEqualTo(5);

		server.commands().configResetstat();
		for (int i = 0; i < 5; i++) {
			assertThat(pausing.tryAcquire("k", 1).isPermitted()).isTrue();
		}
		assertThat(server.commandCalls("evalsha")).isEqualTo(5);
		assertThat(server.commandCalls("get")).isEqualTo(2 * 5);

		pausing.pause("k", TimeUnit.HOURS.toNanos(1));
		server.commands().configResetstat();
		for (int i = 0; i < 5; i++) {
			assertThat(pausing.tryAcquire("k", 1).isPaused()).isTrue();
		}
		assertThat(pausing.inspect("k").isPaused()).isTrue();
		// the pause alone was read: neither the state nor any write
		assertThat(server.commandCalls("evalsha")).isEqualTo(6);
		assertThat(server.commandCalls("get")).isEqualTo(6);
		assertThat(server.commandCalls("set")).isZero();
		assertThat(pausing.inspect("k").getRemaining()).isZero();
		assertThat(plain.errorCount() + pausing.errorCount()).isZero();
	}

	@Test
	void pauseOfMoreThanACenturyIsKeptForACentury() {
		RedisRateLimitStore store = instance(new Target(server::runner, server::connect), pausingWindow());
		store.pause("k", Long.MAX_VALUE);
		Duration century = Duration.ofMillis(TimeUnit.MICROSECONDS.toMillis(ScriptArguments.MAX_PAUSE_MICROS));
		assertThat(store.inspect("k").getPause()).isBetween(century.minusMinutes(1), century);
		RateLimitDecision rejected = store.tryAcquire("k", 1);
		assertThat(rejected.isPaused()).isTrue();
		assertThat(rejected.getRetryAfter()).isBetween(century.minusMinutes(1), century.multipliedBy(11).dividedBy(10));
	}

	/** A standalone server or a cluster: runners on it, and the test's own connections to it. */
	record Target(Supplier<RedisScriptRunner> runner, Supplier<RedisClusterAsyncCommands<byte[], byte[]>> commands) {
	}

	/** Reads one pause key, as {@code pause.lua} writes it, by the test's own connection. */
	private record PauseKey(RedisClusterAsyncCommands<byte[], byte[]> commands, byte[] key) {

		/** Milliseconds until it expires; -2 when it does not exist. */
		long pttl() {
			return this.commands.pttl(this.key).toCompletableFuture().join();
		}

		/** The length of the pause it holds, after when it ends: packed doubles. */
		long pauseLengthMicros() {
			byte[] value = this.commands.get(this.key).toCompletableFuture().join();
			assertThat(value).hasSize(16);
			return (long) ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getDouble(8);
		}

	}

}
