package dev.resilience.benchmarks;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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

import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.Throttle;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

/**
 * What pause on throttle (SPEC §10) costs a decision of the in-memory store while no pause is in
 * force: the same limiter with {@code pause-on-throttle} disabled and enabled, deciding
 * {@code tryAcquire("k", 1)} with limits so high that every call is admitted, by one thread and by
 * two threads sharing the key. Two limiters, since they take different paths in the store: one
 * token bucket (as {@link OneKeyBenchmark}'s, decided without a lock) and one exact window (the
 * {@code log} algorithm, decided under the key's monitor) of a limit never reached. Beside them,
 * pausing enabled while another key of the limiter is paused and this one is not, which costs a
 * clock read and a lookup in the pauses; the target (within 5% of disabled) is for no pause in
 * force.
 * <pre class="code">
 * benchmarks/run.sh PauseCheckBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class PauseCheckBenchmark {

	/** The key every decision asks for. */
	static final String KEY = "k";

	/** The key paused in {@code other_key_paused}. */
	static final String OTHER_KEY = "other";

	/**
	 * The window's length: short, so that the log of an exact window holds a few hundred thousand
	 * entries at the rates measured here rather than millions.
	 */
	private static final Duration WINDOW = Duration.ofMillis(10);

	/** Pausing as a partner answering 429 would have it. */
	private static final PauseOnThrottleSettings ENABLED = new PauseOnThrottleSettings(true, Set.of(429),
			Duration.ofSeconds(1), Duration.ofMinutes(10), 0.1);

	/**
	 * {@code disabled}: {@link PauseOnThrottleSettings#DISABLED}, every limiter's default;
	 * {@code enabled}: pausing on, no key paused; {@code other_key_paused}: pausing on, another key
	 * paused for as long as the run.
	 */
	@Param({ "disabled", "enabled", "other_key_paused" })
	String impl;

	private RateLimiter bucket;

	private RateLimiter window;

	@Setup
	public void setup() {
		PauseOnThrottleSettings pause = this.impl.equals("disabled") ? PauseOnThrottleSettings.DISABLED : ENABLED;
		long rate = Contenders.UNLIMITED_RATE;
		this.bucket = limiter(RateLimiterSettings.builder()
			.tokenBucket(rate, rate, Duration.ofSeconds(1), RefillStrategy.GREEDY)
			.pauseOnThrottle(pause)
			.build());
		this.window = limiter(RateLimiterSettings.builder().window(rate, WINDOW).pauseOnThrottle(pause).build());
		switch (this.impl) {
			case "disabled", "enabled" -> {
			}
			case "other_key_paused" -> {
				this.bucket.pause(OTHER_KEY, ENABLED.maxPause());
				this.window.pause(OTHER_KEY, ENABLED.maxPause());
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + this.impl + "'");
		}
		if (!this.bucket.tryAcquire(KEY, 1).isPermitted() || !this.window.tryAcquire(KEY, 1).isPermitted()
				|| (this.impl.equals("other_key_paused") && this.bucket.tryAcquire(OTHER_KEY, 1).isPermitted())) {
			throw new IllegalStateException("Not the decisions " + this.impl + " should give");
		}
	}

	private static RateLimiter limiter(RateLimiterSettings settings) {
		return StoreRateLimiterRegistry.builder().limiter(Contenders.NAME, settings).build().get(Contenders.NAME);
	}

	@Benchmark
	@Threads(1)
	public boolean bucketOneThread() {
		return this.bucket.tryAcquire(KEY, 1).isPermitted();
	}

	@Benchmark
	@Threads(2)
	public boolean bucketTwoThreads() {
		return this.bucket.tryAcquire(KEY, 1).isPermitted();
	}

	@Benchmark
	@Threads(1)
	public boolean windowOneThread() {
		return this.window.tryAcquire(KEY, 1).isPermitted();
	}

	@Benchmark
	@Threads(2)
	public boolean windowTwoThreads() {
		return this.window.tryAcquire(KEY, 1).isPermitted();
	}

}
