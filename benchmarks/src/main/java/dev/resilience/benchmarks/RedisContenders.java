package dev.resilience.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;

import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.redis.RedisRateLimitStore;
import dev.resilience.ratelimit.redis.RedisScriptRunner;
import dev.resilience.ratelimit.redis.RedisServer;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

/**
 * The Redis-backed limiters the Redis benchmarks compare, all on one Lettuce connection and
 * configured to the same token bucket: ours ({@code store: redis}; also with one and two exact
 * windows), Bucket4j's Lettuce backend (compare-and-swap), Spring Cloud Gateway's token-bucket
 * script as its released jar ships it, and the server's ceiling: a script that returns at once.
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

	/** The implementations {@link #create(String, RedisClient, String[])} knows, with their Redis key prefix. */
	static final String[] ALL = { "ceiling", "gateway", "bucket4j", "ours", "ours-window", "ours-windows" };

	/** Spring Cloud Gateway's script, read from its jar at run time (never copied). */
	static final String GATEWAY_SCRIPT = "META-INF/scripts/request_rate_limiter.lua";

	/** Where the build copies Spring Cloud Gateway's jar, kept off the class path. */
	static final String GATEWAY_JAR = "benchmarks/target/gateway/spring-cloud-gateway-server-webflux.jar";

	static IntPredicate ours(RedisClient client, String[] keys) {
		return ours(client, keys, 0, RATE);
	}

	/** Ours with a token bucket and {@code windows} exact windows of one and two seconds, as large. */
	static IntPredicate ours(RedisClient client, String[] keys, int windows, long rate) {
		RateLimiter limiter = ours(client, windowed(RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.tokenBucket(rate, rate, Duration.ofSeconds(1), RefillStrategy.GREEDY), windows, rate)
			.build());
		return (i) -> limiter.tryAcquire(keys[i], 1).isPermitted();
	}

	/** Our limiter {@link Contenders#NAME} of these settings, on the Redis store, its Redis keys prefixed {@code bench:}. */
	static RateLimiter ours(RedisClient client, RateLimiterSettings settings) {
		RedisScriptRunner runner = new RedisScriptRunner(() -> client.connect(ByteArrayCodec.INSTANCE).async());
		// as an application's startup does: decisions never wait for a connection being opened
		if (!runner.connect(Duration.ofSeconds(10))) {
			throw new IllegalStateException("Redis did not answer");
		}
		return StoreRateLimiterRegistry.builder()
			.store(RedisRateLimitStore.TYPE,
					(name, limiterSettings, ticker) -> new RedisRateLimitStore(name, limiterSettings, runner, "bench:",
							Duration.ofSeconds(5)))
			.limiter(Contenders.NAME, settings)
			.build()
			.get(Contenders.NAME);
	}

	private static RateLimiterSettings.Builder windowed(RateLimiterSettings.Builder settings, int windows, long rate) {
		for (int i = 0; i < windows; i++) {
			settings.window(rate, Duration.ofSeconds(1 + i));
		}
		return settings;
	}

	/**
	 * The server's ceiling for our store's connection setup: {@code EVALSHA} of a script that
	 * returns at once, on one shared connection of byte arrays, each caller waiting for its reply.
	 */
	static IntPredicate ceiling(RedisClient client, String[] keys) {
		RedisAsyncCommands<byte[], byte[]> commands = client.connect(ByteArrayCodec.INSTANCE).async();
		String sha = load(commands, "return 1");
		byte[][][] names = names("ceiling:", keys);
		return (i) -> commands.<Long>evalsha(sha, ScriptOutputType.INTEGER, names[i]).toCompletableFuture().join() == 1;
	}

	/**
	 * Spring Cloud Gateway's {@code RedisRateLimiter} as it calls its script: keys
	 * {@code request_rate_limiter.{id}.tokens} and {@code .timestamp}, arguments replenish rate,
	 * burst capacity, no time (the script asks the server) and one token requested.
	 */
	static IntPredicate gateway(RedisClient client, String[] keys, long rate) {
		RedisAsyncCommands<byte[], byte[]> commands = client.connect(ByteArrayCodec.INSTANCE).async();
		String sha = load(commands, gatewayScript());
		byte[][][] names = new byte[keys.length][][];
		for (int i = 0; i < keys.length; i++) {
			String prefix = "request_rate_limiter.{" + keys[i] + "}.";
			names[i] = new byte[][] { bytes(prefix + "tokens"), bytes(prefix + "timestamp") };
		}
		byte[][] arguments = { bytes(Long.toString(rate)), bytes(Long.toString(rate)), bytes(""), bytes("1") };
		return (i) -> {
			List<?> reply = commands.<List<?>>evalsha(sha, ScriptOutputType.MULTI, names[i], arguments)
				.toCompletableFuture()
				.join();
			return ((Long) reply.get(0)) == 1;
		};
	}

	static String gatewayScript() {
		Path jar = Path.of(GATEWAY_JAR);
		if (!Files.isReadable(jar)) {
			throw new IllegalStateException(GATEWAY_JAR + " is missing: the benchmarks' package phase copies "
					+ "spring-cloud-gateway-server-webflux there (run from the project's root after a build)");
		}
		try (JarFile file = new JarFile(jar.toFile())) {
			JarEntry entry = file.getJarEntry(GATEWAY_SCRIPT);
			if (entry == null) {
				throw new IllegalStateException(GATEWAY_SCRIPT + " is not in " + GATEWAY_JAR);
			}
			try (InputStream in = file.getInputStream(entry)) {
				return new String(in.readAllBytes(), StandardCharsets.UTF_8);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String load(RedisAsyncCommands<byte[], byte[]> commands, String script) {
		return commands.scriptLoad(bytes(script)).toCompletableFuture().join();
	}

	private static byte[][][] names(String prefix, String[] keys) {
		byte[][][] names = new byte[keys.length][][];
		for (int i = 0; i < keys.length; i++) {
			names[i] = new byte[][] { bytes(prefix + keys[i]) };
		}
		return names;
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/** The pattern of every Redis key an implementation writes. */
	static String pattern(String impl) {
		return switch (impl) {
			case "ceiling" -> "ceiling:*";
			case "gateway" -> "request_rate_limiter.*";
			case "bucket4j" -> "bucket4j:*";
			default -> "bench:*";
		};
	}

	static IntPredicate bucket4j(RedisClient client, String[] keys, long rate) {
		LettuceBasedProxyManager<byte[]> buckets = Bucket4jLettuce.casBasedBuilder(client)
			.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
			.build();
		BucketConfiguration configuration = BucketConfiguration.builder()
			.addLimit((limit) -> limit.capacity(rate).refillGreedy(rate, Duration.ofSeconds(1)))
			.build();
		byte[][] names = new byte[keys.length][];
		for (int i = 0; i < keys.length; i++) {
			names[i] = ("bucket4j:" + keys[i]).getBytes(StandardCharsets.UTF_8);
		}
		return (i) -> buckets.builder().build(names[i], () -> configuration).tryConsume(1);
	}

	static IntPredicate create(String impl, RedisClient client, String[] keys) {
		return create(impl, client, keys, RATE);
	}

	/** An implementation whose buckets (and windows) hold and refill {@code rate} a second. */
	static IntPredicate create(String impl, RedisClient client, String[] keys, long rate) {
		return switch (impl) {
			case "ours" -> ours(client, keys, 0, rate);
			case "ours-window" -> ours(client, keys, 1, rate);
			case "ours-windows" -> ours(client, keys, 2, rate);
			case "bucket4j" -> bucket4j(client, keys, rate);
			case "gateway" -> gateway(client, keys, rate);
			case "ceiling" -> ceiling(client, keys);
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
