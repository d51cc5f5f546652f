package dev.resilience.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

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
 * A benchmark of the cheapest decision there is: one bucket, limits so high that every call is
 * admitted, asked by one thread and by two threads sharing the bucket. Ours is measured with the
 * empty key (the limiter's single shared bucket) and with a named key, the way
 * {@code @RateLimited(key = "#customerId")} is used. The named key is compared with the keyed
 * peers as their users write them: Bucket4j buckets in a Caffeine cache looked up by key, and
 * Resilience4j's {@code RateLimiterRegistry.rateLimiter(name)} then {@code acquirePermission()};
 * both keys with the bare, keyless buckets: Resilience4j's {@code AtomicRateLimiter}, a local
 * Bucket4j bucket and Guava's {@code RateLimiter}; and beside them the floor they all share:
 * reading the clock once.
 * <pre class="code">
 * benchmarks/run.sh OneKeyBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class OneKeyBenchmark {

	/** The key every keyed contender is asked for. */
	static final String KEY = "k";

	@Param({ "ours_shared_key", "ours_named_key", "resilience4j_registry", "bucket4j_caffeine", "resilience4j",
			"bucket4j", "guava", "clock_only" })
	String impl;

	private BooleanSupplier limiter;

	@Setup
	public void setup() {
		this.limiter = create(this.impl);
	}

	@Benchmark
	@Threads(1)
	public boolean oneThread() {
		return this.limiter.getAsBoolean();
	}

	@Benchmark
	@Threads(2)
	public boolean twoThreads() {
		return this.limiter.getAsBoolean();
	}

	private static BooleanSupplier create(String impl) {
		long rate = Contenders.UNLIMITED_RATE;
		Duration second = Duration.ofSeconds(1);
		return switch (impl) {
			case "ours_shared_key" -> {
				RateLimiter ours = Contenders.oursTokenBucket(rate, rate, second);
				yield () -> ours.tryAcquire("", 1).isPermitted();
			}
			case "ours_named_key" -> {
				RateLimiter ours = Contenders.oursTokenBucket(rate, rate, second);
				yield () -> ours.tryAcquire(KEY, 1).isPermitted();
			}
			case "resilience4j_registry" -> {
				io.github.resilience4j.ratelimiter.RateLimiterRegistry registry = Contenders
					.resilience4jRegistry((int) (rate / 10), Duration.ofMillis(100));
				yield () -> registry.rateLimiter(KEY).acquirePermission();
			}
			case "bucket4j_caffeine" -> {
				Cache<String, Bucket> buckets = Contenders.bucket4jCache(RandomKeysBenchmark.MAXIMUM_SIZE);
				yield () -> buckets.get(KEY, (k) -> Contenders.bucket4j(rate, rate, second)).tryConsume(1);
			}
			// A tenth of the rate per 100 ms: Resilience4j's permits per period are an int.
			case "resilience4j" -> Contenders.resilience4j((int) (rate / 10), Duration.ofMillis(100))::acquirePermission;
			case "bucket4j" -> {
				Bucket bucket = Contenders.bucket4j(rate, rate, second);
				yield () -> bucket.tryConsume(1);
			}
			case "guava" -> Contenders.guava(rate)::tryAcquire;
			// The floor every contender shares: each decision reads a clock once.
			case "clock_only" -> () -> System.nanoTime() != 0;
			default -> throw new IllegalArgumentException("Unknown implementation '" + impl + "'");
		};
	}

}
