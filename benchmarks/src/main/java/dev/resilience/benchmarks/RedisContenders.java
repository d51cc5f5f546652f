package dev.resilience.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.IntPredicate;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;

import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.redis.RedisRateLimitStore;
import dev.resilience.ratelimit.redis.RedisScriptRunner;
import dev.resilience.ratelimit.redis.RedisServer;

/**
 * The two Redis-backed limiters the Redis benchmarks compare, both on Lettuce and configured to the
 * same token bucket: ours ({@code store: redis}) and Bucket4j's Lettuce backend (compare-and-swap).
 * Each is a test of key number {@code i}: admitted or not.
 */
final class RedisContenders {

	/** A bucket so large that every call is admitted: the benchmarks measure the decision. */
	static final long RATE = Contenders.UNLIMITED_RATE;

	private RedisContenders() {
	}

	static RedisClient client(RedisServer redis, ClientResources resources) {
		return RedisClient.create(resources, RedisURI.create("127.0.0.1", redis.port()));
	}

	static IntPredicate ours(RedisClient client, String[] keys) {
		RedisScriptRunner runner = new RedisScriptRunner(() -> client.connect(ByteArrayCodec.INSTANCE).async());
		// as an application's startup does: decisions never wait for a connection being opened
		if (!runner.connect(Duration.ofSeconds(10))) {
			throw new IllegalStateException("Redis did not answer");
		}
		RateLimiter limiter = RateLimiterRegistry.builder()
			.store(RedisRateLimitStore.TYPE,
					(name, settings, ticker) -> new RedisRateLimitStore(name, settings, runner, "bench:",
							Duration.ofSeconds(5)))
			.limiter(Contenders.NAME, RateLimiterSettings.builder()
				.store(RedisRateLimitStore.TYPE)
				.tokenBucket(RATE, RATE, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.build())
			.build()
			.get(Contenders.NAME);
		return (i) -> limiter.tryAcquire(keys[i], 1).isPermitted();
	}

	static IntPredicate bucket4j(RedisClient client, String[] keys) {
		LettuceBasedProxyManager<byte[]> buckets = Bucket4jLettuce.casBasedBuilder(client)
			.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
			.build();
		BucketConfiguration configuration = BucketConfiguration.builder()
			.addLimit((limit) -> limit.capacity(RATE).refillGreedy(RATE, Duration.ofSeconds(1)))
			.build();
		byte[][] names = new byte[keys.length][];
		for (int i = 0; i < keys.length; i++) {
			names[i] = ("bucket4j:" + keys[i]).getBytes(StandardCharsets.UTF_8);
		}
		return (i) -> buckets.builder().build(names[i], () -> configuration).tryConsume(1);
	}

	static IntPredicate create(String impl, RedisClient client, String[] keys) {
		return switch (impl) {
			case "ours" -> ours(client, keys);
			case "bucket4j" -> bucket4j(client, keys);
			default -> throw new IllegalArgumentException("Unknown implementation '" + impl + "'");
		};
	}

	static String[] keys(int count) {
		String[] keys = new String[count];
		for (int i = 0; i < count; i++) {
			keys[i] = "key-" + i;
		}
		return keys;
	}

}
