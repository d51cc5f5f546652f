package dev.resilience.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

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

import dev.resilience.Ticker;
import dev.resilience.retry.RetryBudget;
import dev.resilience.retry.RetryBudgetSettings;

/**
 * A benchmark of one retry budget shared by its callers, used as a retried call uses it: every
 * call records its first attempt, and every fourth call fails and asks the budget for a retry.
 * The budget allows 0.2 retries per first attempt plus 10 per second over a window of 100 ms, so
 * a share of the asks is granted and the rest refused, and the window slides on the system
 * clock while the benchmark runs. One thread, and two threads sharing the budget. Ours against
 * {@link LockedLogBudget}, the same rule kept exactly under a lock in a log of every call, as our
 * budget was built in earlier versions.
 * <p>
 * The window is 100 ms rather than the default 10 s so that the log of every call in the window
 * fits in the fork's heap at this call rate (tens of millions of calls a second); a shorter log
 * also flatters it.
 * <pre class="code">
 * benchmarks/run.sh RetryBudgetBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class RetryBudgetBenchmark {

	@Param({ "ours", "locked_log" })
	String impl;

	private Budget budget;

	@Setup
	public void setup() {
		RetryBudgetSettings settings = new RetryBudgetSettings(0.2, Duration.ofMillis(100), 10);
		this.budget = switch (this.impl) {
			case "ours" -> {
				RetryBudget ours = new RetryBudget(settings, Ticker.system());
				yield new Budget(ours::recordFirstAttempt, ours::tryRetry);
			}
			case "locked_log" -> {
				LockedLogBudget log = new LockedLogBudget(settings, Ticker.system());
				yield new Budget(log::recordFirstAttempt, log::tryRetry);
			}
			default -> throw new IllegalArgumentException("Unknown implementation '" + this.impl + "'");
		};
	}

	@Benchmark
	@Threads(1)
	public boolean oneThread(Caller caller) {
		return call(caller);
	}

	@Benchmark
	@Threads(2)
	public boolean twoThreads(Caller caller) {
		return call(caller);
	}

	private boolean call(Caller caller) {
		this.budget.recordFirstAttempt.run();
		return ((++caller.calls & 3) == 0) && this.budget.tryRetry.getAsBoolean();
	}

	private record Budget(Runnable recordFirstAttempt, BooleanSupplier tryRetry) {
	}

	/** One calling thread's count of its calls: every fourth one fails. */
	@State(Scope.Thread)
	public static class Caller {

		int calls;

	}

}
