package dev.resilience.benchmarks;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.resilience.benchmarks.BenchmarkReport.Result;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BenchmarkReport}; they run no benchmark.
 */
class BenchmarkReportTests {

	private static final List<String> CSV = List.of(
			"\"Benchmark\",\"Mode\",\"Threads\",\"Samples\",\"Score\",\"Score Error (99.9%)\",\"Unit\",\"Param: impl\",\"Param: limit\"",
			"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,30.0,1.5,\"ops/us\",ours_shared_key,",
			"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,25.0,1.0,\"ops/us\",ours_named_key,",
			"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,10.0,0.5,\"ops/us\",guava,",
			"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,16.0,0.5,\"ops/us\",bucket4j,",
			"\"dev.resilience.benchmarks.SlidingWindowBenchmark.decide\",\"thrpt\",1,1,4.0,NaN,\"ops/us\",ours,1000000",
			"\"dev.resilience.benchmarks.SlidingWindowBenchmark.decide\",\"thrpt\",1,1,5.0,NaN,\"ops/us\",ours,1000",
			"\"dev.resilience.benchmarks.SlidingWindowBenchmark.decide\",\"thrpt\",1,1,10.0,NaN,\"ops/us\",bucket4j,1000000");

	@Test
	void rewritingTheReportKeepsTheRedisSection() {
		String section = RedisBenchmarkReport.START + "\n## Redis store\n\nmeasured\n" + RedisBenchmarkReport.END;
		String previous = "# Old report\n\n" + section + "\n";
		assertThat(RedisBenchmarkReport.SECTION.keep(previous, "# New report\n")).isEqualTo("# New report\n\n" + section + "\n");
		assertThat(RedisBenchmarkReport.SECTION.keep("# Old report, never run-redis.sh\n", "# New report\n"))
			.isEqualTo("# New report\n");
	}

	@Test
	void eachSectionIsReplacedInPlaceAndTheOtherKept() {
		ReportSection http = BenchmarkReport.HTTP_SECTION;
		String redis = RedisBenchmarkReport.START + "\nredis\n" + RedisBenchmarkReport.END;
		String oldHttp = http.start() + "\nold http\n" + http.end();
		String newHttp = http.start() + "\nnew http\n" + http.end();
		String previous = "# Old report\n\n" + redis + "\n\n" + oldHttp + "\n";
		assertThat(http.replace(previous, newHttp)).isEqualTo("# Old report\n\n" + redis + "\n\n" + newHttp + "\n");
		assertThat(http.keep(previous, RedisBenchmarkReport.SECTION.keep(previous, "# New report\n")))
			.isEqualTo("# New report\n\n" + redis + "\n\n" + oldHttp + "\n");
	}

	@Test
	void parseCsvReadsParametersAndMissingErrors() {
		List<Result> results = Result.parseCsv(CSV);
		assertThat(results).hasSize(7);
		assertThat(results.get(0)).isEqualTo(new Result("OneKeyBenchmark", "oneThread", "ours_shared_key", "", 1, 30.0, 1.5));
		assertThat(results.get(4).limit()).isEqualTo("1000000");
		assertThat(results.get(4).error()).isNaN();
	}

	@Test
	void versionsComeFromJarNames() {
		String classPath = String.join(java.io.File.pathSeparator, "/m2/com/bucket4j/bucket4j_jdk17-core-8.19.0.jar",
				"/m2/org/springframework/boot/spring-boot-autoconfigure-4.1.1.jar",
				"/m2/org/springframework/boot/spring-boot-4.1.1.jar", "/m2/com/google/guava/guava-33.8.0-jre.jar");
		assertThat(BenchmarkReport.versions(classPath)).containsEntry("Bucket4j", "8.19.0")
			.containsEntry("Spring Boot", "4.1.1")
			.containsEntry("Guava", "33.8.0-jre")
			.doesNotContainKey("Resilience4j");
	}

	@Test
	void toMarkdownMarksEachTargetFromTheNumbers() {
		BenchmarkReport report = new BenchmarkReport(Result.parseCsv(CSV), Map.of("ours", 120.0, "bucket4j_caffeine", 360.0),
				Map.of(), Map.of());
		String markdown = report.toMarkdown("- CPU: test\n");
		// One thread: the named key 25 / 16 >= 0.8 of the best bare bucket; no keyed peer in this run.
		assertThat(markdown).contains("| One named key admitting, 1 thread: ours ≥ 0.8× the best bare bucket | 25.00 vs 16.00 ops/µs (Bucket4j) = 1.56×");
		assertThat(line(markdown, "One named key admitting, 1 thread: ours ≥ 0.8×")).endsWith("| **met** |");
		assertThat(line(markdown, "One named key admitting, 1 thread: ours ≥ 1.5×")).endsWith("| not measured |");
		assertThat(line(markdown, "One named key admitting, 2 threads: ours ≥ 0.8×")).endsWith("| not measured |");
		// 4 / 10 < 0.5 of Bucket4j, 4 / 5 >= 0.8 of the low limit.
		assertThat(line(markdown, "ours ≥ 0.5× a Bucket4j bucket")).endsWith("| **not met** |");
		assertThat(line(markdown, "not much slower than at 1,000")).endsWith("| **met** |");
		assertThat(line(markdown, "ours ≤ 150 B")).endsWith("| **met** |");
		assertThat(markdown).contains("| 1 | ours, key \"k\" | 25.00 | 1.00 | — | — | — | 1.56× | 2.50× |");
		assertThat(markdown).contains("| ours | 120.0 B | — |\n| Bucket4j in Caffeine | 360.0 B | 3.00× |");
	}

	@Test
	void toMarkdownComparesTheNamedKeyWithTheBestKeyedPeer() {
		List<Result> results = Result.parseCsv(List.of(CSV.get(0), CSV.get(2),
				"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,16.0,0.5,\"ops/us\",resilience4j_registry,",
				"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,8.0,0.5,\"ops/us\",bucket4j_caffeine,",
				"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,40.0,0.5,\"ops/us\",resilience4j,"));
		String markdown = new BenchmarkReport(results, Map.of(), Map.of(), Map.of()).toMarkdown("- CPU: test\n");
		// 25 / 16 >= 1.5 of the best keyed peer, 25 / 40 < 0.8 of the best bare bucket
		assertThat(line(markdown, "One named key admitting, 1 thread: ours ≥ 1.5× the best keyed peer"))
			.contains("25.00 vs 16.00 ops/µs (Resilience4j registry by key) = 1.56×")
			.endsWith("| **met** |");
		assertThat(line(markdown, "One named key admitting, 1 thread: ours ≥ 0.8× the best bare bucket"))
			.contains("25.00 vs 40.00 ops/µs (Resilience4j) = 0.63×")
			.endsWith("| **not met** |");
		assertThat(markdown).contains("| 1 | ours, key \"k\" | 25.00 | 1.00 | 1.56× | 3.13× | 0.63× | — | — |");
	}

	@Test
	void toMarkdownSaysWhatShareOfTheClocksSpeedEachTargetNeedsAndWhatTheKeyedTargetIsAgainstTheBareBucket() {
		List<Result> results = Result.parseCsv(List.of(CSV.get(0), CSV.get(2),
				"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,16.0,0.5,\"ops/us\",resilience4j_registry,",
				"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,20.0,0.5,\"ops/us\",resilience4j,",
				"\"dev.resilience.benchmarks.OneKeyBenchmark.oneThread\",\"thrpt\",1,3,32.0,0.5,\"ops/us\",clock_only,"));
		String markdown = new BenchmarkReport(results, Map.of(), Map.of(), Map.of()).toMarkdown("- CPU: test\n");
		// bare 20 / 32 = 63%, 0.8 × that = 50%; keyed 1.5 × 16 / 32 = 75%, and 1.5 × 16 / 20 = 1.20 of the bare
		assertThat(markdown).contains("One key, 1 thread(s): reading the clock alone, which every contender does once "
				+ "per decision, runs at 32.00 ops/µs; the best bare bucket reaches 63% of that, so 0.8× the best bare "
				+ "bucket needs 50% of the clock's own speed for the lookup and the decision, and 1.5× the best keyed "
				+ "peer needs 75% of it. That target is 1.20× the best bare bucket: a decision with a key lookup "
				+ "faster than any keyless bucket measured here.");
	}

	@Test
	void toMarkdownComparesThePoolCallWithCommonsPoolAndResilience4j() {
		List<Result> results = Result.parseCsv(List.of(CSV.get(0),
				"\"dev.resilience.benchmarks.PoolCallBenchmark.call\",\"thrpt\",1,3,0.05,0.01,\"ops/us\",ours,",
				"\"dev.resilience.benchmarks.PoolCallBenchmark.call\",\"thrpt\",1,3,2.0,0.1,\"ops/us\",commons_pool2,",
				"\"dev.resilience.benchmarks.PoolCallBenchmark.call\",\"thrpt\",1,3,0.04,0.01,\"ops/us\",resilience4j,"));
		String markdown = new BenchmarkReport(results, Map.of(), Map.of(), Map.of()).toMarkdown("- CPU: test\n");
		assertThat(markdown).contains("## 6. Call with a pooled connection and a deadline")
			.contains("| Threads | Implementation | ops/µs | ± error | ours ÷ Commons Pool 2 | ours ÷ Resilience4j |")
			.contains("| 1 | ours | 0.0500 | 0.0100 | 0.025× | 1.25× |")
			.contains("| 1 | Commons Pool 2 | 2.00 | 0.1000 | — | — |");
	}

	@Test
	void toMarkdownComparesTheAsyncCallsWithResilience4j() {
		List<Result> results = Result.parseCsv(List.of(CSV.get(0),
				"\"dev.resilience.benchmarks.AsyncCallBenchmark.future\",\"thrpt\",1,3,1.0,0.1,\"ops/us\",ours,",
				"\"dev.resilience.benchmarks.AsyncCallBenchmark.future\",\"thrpt\",1,3,0.8,0.1,\"ops/us\",resilience4j,",
				"\"dev.resilience.benchmarks.AsyncCallBenchmark.mono\",\"thrpt\",1,3,3.0,0.2,\"ops/us\",ours,",
				"\"dev.resilience.benchmarks.AsyncCallBenchmark.mono\",\"thrpt\",1,3,1.0,0.1,\"ops/us\",resilience4j,",
				"\"dev.resilience.benchmarks.AsyncCallBenchmark.mono\",\"thrpt\",1,3,50.0,5.0,\"ops/us\",plain,"));
		String markdown = new BenchmarkReport(results, Map.of(), Map.of(), Map.of()).toMarkdown("- CPU: test\n");
		assertThat(line(markdown, "Annotated `Mono`: ours ≥ 2×")).contains("3.00 vs 1.00 ops/µs = 3.00×").endsWith("| **met** |");
		assertThat(line(markdown, "Annotated `CompletableFuture`: ours ≥ 2×")).contains("= 1.25×").endsWith("| **not met** |");
		assertThat(markdown).contains("## 7. Asynchronous annotated calls")
			.contains("| Call | Implementation | ops/µs | ± error | ours ÷ Resilience4j |")
			.contains("| `CompletableFuture`, retried | ours | 1.00 | 0.1000 | 1.25× |")
			.contains("| `Mono`, rate limited | ours | 3.00 | 0.2000 | 3.00× |\n| `Mono`, rate limited | Resilience4j | 1.00 | 0.1000 | — |\n| `Mono`, rate limited | plain | 50.00 | 5.00 | — |");
	}

	@Test
	void toMarkdownComparesTheRetryBudgetWithTheLockedLog() {
		List<Result> results = Result.parseCsv(List.of(CSV.get(0),
				"\"dev.resilience.benchmarks.RetryBudgetBenchmark.oneThread\",\"thrpt\",1,3,30.0,1.0,\"ops/us\",ours,",
				"\"dev.resilience.benchmarks.RetryBudgetBenchmark.oneThread\",\"thrpt\",1,3,20.0,1.0,\"ops/us\",locked_log,",
				"\"dev.resilience.benchmarks.RetryBudgetBenchmark.twoThreads\",\"thrpt\",2,3,40.0,2.0,\"ops/us\",ours,",
				"\"dev.resilience.benchmarks.RetryBudgetBenchmark.twoThreads\",\"thrpt\",2,3,10.0,1.0,\"ops/us\",locked_log,"));
		String markdown = new BenchmarkReport(results, Map.of(), Map.of(), Map.of()).toMarkdown("- CPU: test\n");
		assertThat(line(markdown, "Retry budget, 2 threads: ours ≥ 2×")).contains("40.00 vs 10.00 ops/µs = 4.00×")
			.endsWith("| **met** |");
		assertThat(markdown).contains("## 8. Retry budget")
			.contains("| Threads | Implementation | ops/µs | ± error | ours ÷ exact log under a lock (earlier versions) |")
			.contains("| 1 | ours | 30.00 | 1.00 | 1.50× |")
			.contains("| 2 | ours | 40.00 | 2.00 | 4.00× |\n| 2 | exact log under a lock (earlier versions) | 10.00 | 1.00 | — |");
	}

	@Test
	void toMarkdownDividesEachPauseSettingByDisabled() {
		List<Result> results = Result.parseCsv(List.of(CSV.get(0),
				"\"dev.resilience.benchmarks.PauseCheckBenchmark.bucketOneThread\",\"thrpt\",1,3,20.0,0.5,\"ops/us\",disabled,",
				"\"dev.resilience.benchmarks.PauseCheckBenchmark.bucketOneThread\",\"thrpt\",1,3,19.2,0.5,\"ops/us\",enabled,",
				"\"dev.resilience.benchmarks.PauseCheckBenchmark.bucketOneThread\",\"thrpt\",1,3,12.0,0.5,\"ops/us\",other_key_paused,",
				"\"dev.resilience.benchmarks.PauseCheckBenchmark.windowTwoThreads\",\"thrpt\",2,3,10.0,1.0,\"ops/us\",disabled,",
				"\"dev.resilience.benchmarks.PauseCheckBenchmark.windowTwoThreads\",\"thrpt\",2,3,9.0,1.0,\"ops/us\",enabled,"));
		String markdown = new BenchmarkReport(results, Map.of(), Map.of(), Map.of()).toMarkdown("- CPU: test\n");
		// 19.2 / 20 = 0.96 >= 0.95, 9 / 10 = 0.90 < 0.95
		assertThat(line(markdown, "Pause on throttle enabled, no pause in force, token bucket, 1 thread"))
			.contains("19.20 vs 20.00 ops/µs = 0.96×")
			.endsWith("| **met** |");
		assertThat(line(markdown, "Pause on throttle enabled, no pause in force, exact window, 2 threads"))
			.endsWith("| **not met** |");
		assertThat(line(markdown, "Pause on throttle enabled, no pause in force, token bucket, 2 threads"))
			.endsWith("| not measured |");
		assertThat(markdown).contains("## 10. Pause on throttle, no pause in force")
			.contains("| Limiter | Threads | pause-on-throttle | ops/µs | ± error | ÷ disabled |")
			.contains("| token bucket | 1 | disabled | 20.00 | 0.5000 | — |\n"
					+ "| token bucket | 1 | enabled, no key paused | 19.20 | 0.5000 | 0.96× |\n"
					+ "| token bucket | 1 | enabled, another key paused | 12.00 | 0.5000 | 0.60× |\n"
					+ "| exact window | 2 | disabled | 10.00 | 1.00 | — |\n"
					+ "| exact window | 2 | enabled, no key paused | 9.00 | 1.00 | 0.90× |\n");
	}

	@Test
	void toMarkdownComparesTheFixedPermitWithResilience4jAndTheAdaptiveOneWithNetflix() {
		List<Result> results = Result.parseCsv(List.of(CSV.get(0),
				"\"dev.resilience.benchmarks.ConcurrencyPermitBenchmark.oneThread\",\"thrpt\",1,3,4.0,0.5,\"ops/us\",ours_fixed,",
				"\"dev.resilience.benchmarks.ConcurrencyPermitBenchmark.oneThread\",\"thrpt\",1,3,40.0,2.0,\"ops/us\",resilience4j,",
				"\"dev.resilience.benchmarks.ConcurrencyPermitBenchmark.oneThread\",\"thrpt\",1,3,3.0,0.5,\"ops/us\",ours_adaptive,",
				"\"dev.resilience.benchmarks.ConcurrencyPermitBenchmark.oneThread\",\"thrpt\",1,3,6.0,0.5,\"ops/us\",netflix_gradient2,",
				"\"dev.resilience.benchmarks.ConcurrencyPermitBenchmark.twoThreads\",\"thrpt\",2,3,2.0,0.5,\"ops/us\",ours_fixed,",
				"\"dev.resilience.benchmarks.ConcurrencyPermitBenchmark.twoThreads\",\"thrpt\",2,3,20.0,2.0,\"ops/us\",resilience4j,"));
		String markdown = new BenchmarkReport(results, Map.of(), Map.of(), Map.of()).toMarkdown("- CPU: test\n");
		assertThat(markdown).contains("## 11. A call through a concurrency permit")
			.contains("| Threads, limit | Implementation | ops/µs | ± error | ours ÷ Resilience4j "
					+ "| ours ÷ Netflix SimpleLimiter + Gradient2Limit |")
			.contains("| 1, fixed 10 | ours | 4.00 | 0.5000 | 0.10× | — |\n| 1, fixed 10 | Resilience4j | 40.00 | 2.00 | — | — |\n"
					+ "| 1, adaptive | ours | 3.00 | 0.5000 | — | 0.50× |\n"
					+ "| 1, adaptive | Netflix SimpleLimiter + Gradient2Limit | 6.00 | 0.5000 | — | — |\n"
					+ "| 2, fixed 10 | ours | 2.00 | 0.5000 | 0.10× | — |\n");
	}

	private static String line(String markdown, String containing) {
		return markdown.lines().filter((line) -> line.contains(containing)).findFirst().orElseThrow();
	}

	@Test
	void redisSectionJudgesTheServersInstructionsWhenCountedAndSaysWhenNot() {
		// server µs per decision: Gateway 10, ours 9, with a window 19 (adds 10, above Gateway's)
		List<String> commands = List.of("impl,decisions,clientCommands,scriptCalls,serverMicros,memoryBytesPerKey",
				"ceiling,100,100,100,100,0", "gateway,100,100,100,1000,176", "bucket4j,100,200,100,500,182",
				"ours,100,100,100,900,152", "ours-window,100,100,100,1900,320", "ours-windows,100,100,100,2800,488");
		// instructions per decision: the window adds 70,000 against Gateway's 80,000
		List<String> instructions = List.of("impl,decisions,instructionsPerDecision", "ceiling,100,10000",
				"gateway,100,80000", "bucket4j,100,45000", "ours,100,76000", "ours-window,100,146000",
				"ours-windows,100,206000");
		String counted = RedisBenchmarkReport.section(Map.of(), commands, instructions, "settings");
		assertThat(counted)
			.contains("| An exact window adds at most Spring Cloud Gateway's server time | +10.0 µs against 10.0 µs (1.00×) "
					+ "| **met** |")
			.contains("| Server instructions per decision, bucket only: ours ≤ 1.5× Spring Cloud Gateway's (goal 1×) "
					+ "| 0.95× | **met** |")
			.contains("| An exact window adds at most Spring Cloud Gateway's server instructions "
					+ "| +70,000 against 80,000 (0.88×) | **met** |")
			.contains("| ours, bucket + one exact window | 1.00 | 1.00 | 19.0 | 1.90× | 146,000 | 1.83× | 320 |");
		List<String> more = List.of("impl,decisions,instructionsPerDecision", "ceiling,100,10000", "gateway,100,80000",
				"bucket4j,100,45000", "ours,100,76000", "ours-window,100,166000", "ours-windows,100,226000");
		assertThat(RedisBenchmarkReport.section(Map.of(), commands, more, "settings"))
			.contains("| +90,000 against 80,000 (1.13×) | **not met** |");
		String uncounted = RedisBenchmarkReport.section(Map.of(), commands, null, "settings");
		assertThat(uncounted).doesNotContain("server instructions |")
			.contains("Server instructions were not counted: `valgrind`")
			.contains("| ours, bucket + one exact window | 1.00 | 1.00 | 19.0 | 1.90× | — | — | 320 |");
	}

}
