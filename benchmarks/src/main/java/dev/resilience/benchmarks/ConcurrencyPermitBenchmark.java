package dev.resilience.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.github.resilience4j.bulkhead.Bulkhead;
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

import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimiter;

/**
 * One call through a concurrency permit on one key, work that does nothing: the permit taken and
 * given back at once, by one thread and by two threads sharing the key. Our limiter with only
 * {@code max-concurrent} (key "k", {@code acquire} then {@code close}) against Resilience4j's
 * {@code SemaphoreBulkhead} ({@code tryAcquirePermission} then {@code onComplete}); and our
 * {@code max-concurrent: adaptive} with the {@code gradient} algorithm, each ended call a sample,
 * against Netflix concurrency-limits' own {@code SimpleLimiter} with the same {@code Gradient2Limit}
 * ({@code acquire} then the listener's {@code onSuccess}). Every contender rejects at once rather
 * than waits; the limits never fall below the two threads, so every call is admitted, and a
 * rejection fails the run rather than being counted as a fast call.
 * <pre class="code">
 * benchmarks/run.sh ConcurrencyPermitBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class ConcurrencyPermitBenchmark {

	/** The key our limiters are asked for. */
	static final String KEY = "k";

	/** The fixed limit of ours and of the bulkhead: more than the threads, so never reached. */
	static final int MAX_CONCURRENT = 10;

	/**
	 * The adaptive limit of ours and of Netflix's: {@code gradient} from 10, between 2 (the most
	 * threads here, so that no call is rejected) and 200.
	 */
	static final AdaptiveConcurrencySettings ADAPTIVE = new AdaptiveConcurrencySettings(
			AdaptiveConcurrencySettings.Algorithm.GRADIENT, 10, 2, 200);

	@Param({ "ours_fixed", "resilience4j", "ours_adaptive", "netflix_gradient2" })
	String impl;

	private BooleanSupplier call;

	@Setup
	public void setup() {
		this.call = create(this.impl);
	}

	@Benchmark
	@Threads(1)
	public boolean oneThread() {
		return this.call.getAsBoolean();
	}

	@Benchmark
	@Threads(2)
	public boolean twoThreads() {
		return this.call.getAsBoolean();
	}

	private static BooleanSupplier create(String impl) {
		return switch (impl) {
			case "ours_fixed" -> ours(Contenders.oursMaxConcurrent(MAX_CONCURRENT));
			case "resilience4j" -> {
				Bulkhead bulkhead = Contenders.resilience4jBulkhead(MAX_CONCURRENT);
				yield () -> {
					if (!bulkhead.tryAcquirePermission()) {
						throw new IllegalStateException("Resilience4j's bulkhead rejected a call");
					}
					bulkhead.onComplete();
					return true;
				};
			}
			case "ours_adaptive" -> ours(Contenders.oursAdaptive(ADAPTIVE));
			case "netflix_gradient2" -> {
				SimpleLimiter<Void> limiter = Contenders.netflixGradient2(ADAPTIVE);
				yield () -> {
					Limiter.Listener listener = limiter.acquire(null)
						.orElseThrow(() -> new IllegalStateException("Netflix's limiter rejected a call"));
					listener.onSuccess();
					return true;
				};
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + impl + "'");
		};
	}

	/** A call through our limiter: a rejection throws {@code RateLimitExceededException}. */
	private static BooleanSupplier ours(RateLimiter limiter) {
		return () -> {
			Permit permit = limiter.acquire(KEY, 1, Duration.ZERO);
			permit.close();
			return true;
		};
	}

}
