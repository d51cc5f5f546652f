package dev.resilience.benchmarks;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import com.github.benmanes.caffeine.cache.Cache;
import io.github.bucket4j.Bucket;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import dev.resilience.ratelimit.RateLimiter;

/**
 * A benchmark of per-key limiting over {@value #KEYS} keys drawn uniformly at random, such as
 * one bucket per client: our bucket-only limiter against Bucket4j buckets kept in a Caffeine
 * cache, the usual way to hold per-key Bucket4j buckets in one JVM. Each key has a bucket
 * of {@value #CAPACITY} refilled at {@value #CAPACITY} per second, so a key asked every few
 * milliseconds is always admitted. The keys are created before the run; a xorshift generator
 * per thread picks the next one, so picking costs a few instructions and allocates nothing.
 * <pre class="code">
 * benchmarks/run.sh RandomKeysBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Threads(1)
public class RandomKeysBenchmark {

	static final int KEYS = 100_000;

	static final long CAPACITY = 100;

	/**
	 * Bucket4j's cache holds at most this many keys, the default {@code max-keys} of our store:
	 * more than the benchmark uses, so neither evicts by size.
	 */
	static final long MAXIMUM_SIZE = 1_000_000;

	@Param({ "ours", "bucket4j_caffeine" })
	String impl;

	private String[] keys;

	private Predicate<String> limiter;

	@Setup
	public void setup() {
		this.keys = new String[KEYS];
		for (int i = 0; i < KEYS; i++) {
			this.keys[i] = "client-" + i;
		}
		Duration second = Duration.ofSeconds(1);
		this.limiter = switch (this.impl) {
			case "ours" -> {
				RateLimiter ours = Contenders.oursTokenBucket(CAPACITY, CAPACITY, second);
				yield (key) -> ours.tryAcquire(key, 1).isPermitted();
			}
			case "bucket4j_caffeine" -> {
				Cache<String, Bucket> buckets = Contenders.bucket4jCache(MAXIMUM_SIZE);
				yield (key) -> buckets.get(key, (k) -> Contenders.bucket4j(CAPACITY, CAPACITY, second)).tryConsume(1);
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + this.impl + "'");
		};
	}

	@Benchmark
	public boolean tryAcquire(ThreadState thread) {
		return this.limiter.test(this.keys[thread.nextIndex()]);
	}

	/**
	 * Each thread's generator of key indexes.
	 */
	@State(Scope.Thread)
	public static class ThreadState {

		private long seed = new SplittableRandom().nextLong() | 1;

		/**
		 * Returns the next index, uniform in {@code [0, KEYS)}: Marsaglia's xorshift64, scaled by
		 * a multiply and a shift rather than a division.
		 * @return the index
		 */
		int nextIndex() {
			long x = this.seed;
			x ^= x << 13;
			x ^= x >>> 7;
			x ^= x << 17;
			this.seed = x;
			return (int) (((x >>> 32) * KEYS) >>> 32);
		}

	}

}
