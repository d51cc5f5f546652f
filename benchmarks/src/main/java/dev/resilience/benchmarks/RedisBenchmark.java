package dev.resilience.benchmarks;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.resilience.ratelimit.redis.RedisServer;

/**
 * Decisions per second on one local {@code redis-server} (started by the benchmark on a free
 * port): ours against Bucket4j's Lettuce backend, the same token bucket (so large that every call
 * is admitted), on one hot key and spread over 10,000 keys, by 1 and by 16 threads sharing one
 * Lettuce connection each; and the server's ceiling for that setup, {@code EVALSHA} of a script
 * that returns at once. {@link RedisCommandCount} counts the commands and the server's time each
 * decision costs.
 * <pre class="code">
 * benchmarks/run-redis.sh
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class RedisBenchmark {

	@Param({ "ceiling", "ours", "bucket4j" })
	String impl;

	@Param({ "1", "10000" })
	int keys;

	private RedisServer redis;

	private ClientResources resources;

	private RedisClient client;

	private IntPredicate limiter;

	@Setup(Level.Trial)
	public void setup() {
		this.redis = RedisServer.start();
		this.resources = DefaultClientResources.create();
		this.client = RedisContenders.client(this.redis, this.resources);
		this.limiter = RedisContenders.create(this.impl, this.client, RedisContenders.keys(this.keys));
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.client.shutdown();
		this.resources.shutdown();
		this.redis.close();
	}

	@Benchmark
	@Threads(1)
	public boolean oneThread() {
		return decide();
	}

	@Benchmark
	@Threads(16)
	public boolean sixteenThreads() {
		return decide();
	}

	private boolean decide() {
		int key = (this.keys == 1) ? 0 : ThreadLocalRandom.current().nextInt(this.keys);
		return this.limiter.test(key);
	}

}
