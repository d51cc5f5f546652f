package dev.resilience.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler that divides each iteration's operations by the CPU time spent on them instead of
 * the wall-clock time (the score times wall-clock ÷ CPU time, for a score in operations per µs):
 * {@code ·cpu.process} by the fork's whole CPU time (the collector's and the
 * compiler's threads included), {@code ·cpu.workers} by its benchmark threads' alone; both in
 * operations per CPU-µs. On a machine shared with other work, a benchmark thread waiting for a
 * core adds to its wall-clock time and not to its CPU time, so these move much less with the load
 * than the score does (they still move with what the other work does to the caches). With one
 * benchmark thread and nothing else running, {@code ·cpu.workers} is about the score; with two,
 * about half of it.
 * <pre class="code">
 * java -cp ... org.openjdk.jmh.Main PauseCheckBenchmark -prof dev.resilience.benchmarks.CpuTimeProfiler
 * </pre>
 */
public final class CpuTimeProfiler implements InternalProfiler {

	private static final String WORKER = "jmh-worker";

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	private final com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private long wallStart;

	private long processStart;

	private Map<Long, Long> workersStart = Map.of();

	@Override
	public String getDescription() {
		return "Operations per CPU-µs of the fork and of its benchmark threads";
	}

	@Override
	public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
		this.workersStart = workerTimes();
		this.processStart = this.os.getProcessCpuTime();
		this.wallStart = System.nanoTime();
	}

	@Override
	public List<Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
			IterationResult result) {
		long wall = System.nanoTime() - this.wallStart;
		long process = this.os.getProcessCpuTime() - this.processStart;
		long workers = 0;
		for (Map.Entry<Long, Long> worker : workerTimes().entrySet()) {
			workers += worker.getValue() - this.workersStart.getOrDefault(worker.getKey(), 0L);
		}
		// The score is operations per µs of wall-clock time: the same interval's CPU time rescales it.
		double score = result.getPrimaryResult().getScore();
		return List.of(perCpu("·cpu.process", score, wall, process), perCpu("·cpu.workers", score, wall, workers));
	}

	private static ScalarResult perCpu(String label, double score, long wallNanos, long cpuNanos) {
		return new ScalarResult(label, (cpuNanos > 0) ? score * wallNanos / cpuNanos : Double.NaN, "ops/cpu-µs",
				AggregationPolicy.AVG);
	}

	private Map<Long, Long> workerTimes() {
		Map<Long, Long> times = new HashMap<>();
		for (ThreadInfo info : this.threads.getThreadInfo(this.threads.getAllThreadIds())) {
			if (info != null && info.getThreadName().contains(WORKER)) {
				long time = this.threads.getThreadCpuTime(info.getThreadId());
				if (time >= 0) {
					times.put(info.getThreadId(), time);
				}
			}
		}
		return times;
	}

}
