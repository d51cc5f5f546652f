package dev.resilience.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

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
 * A benchmark of our exact sliding window (the default {@code log} algorithm) at a high and a
 * low limit per 100 ms, against a Bucket4j bucket of the same rate (capacity = limit, refilled
 * greedily by limit per 100 ms). Every decision counts, admitted or rejected: at 1,000 per
 * 100 ms nearly all calls are rejected, at 1,000,000 per 100 ms a large share is admitted, so
 * the two limits show whether the window's cost grows with the calls it holds.
 * <pre class="code">
 * benchmarks/run.sh SlidingWindowBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Threads(1)
public class SlidingWindowBenchmark {

	private static final Duration PERIOD = Duration.ofMillis(100);

	@Param({ "ours", "bucket4j" })
	String impl;

	@Param({ "1000000", "1000" })
	long limit;

	private BooleanSupplier limiter;

	@Setup
	public void setup() {
		this.limiter = switch (this.impl) {
			case "ours" -> {
				RateLimiter ours = Contenders.oursWindow(this.limit, PERIOD);
				yield () -> ours.tryAcquire("", 1).isPermitted();
			}
			case "bucket4j" -> {
				Bucket bucket = Contenders.bucket4j(this.limit, this.limit, PERIOD);
				yield () -> bucket.tryConsume(1);
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + this.impl + "'");
		};
	}

	@Benchmark
	public boolean decide() {
		return this.limiter.getAsBoolean();
	}

}
