package dev.resilience.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Writes {@code docs/benchmarks.md} from one run of {@code benchmarks/run.sh}: the machine, the
 * JMH settings, every result with its error, each of our results as a ratio to each competitor
 * measured in the same run, and whether each target is met.
 * <p>
 * Arguments are {@code name=value} pairs: {@code jmh} (JMH's CSV results), {@code memory}
 * ({@link MemoryFootprint}'s CSV), {@code out} (the Markdown file to write), {@code forks},
 * {@code warmupIterations}, {@code warmupTime}, {@code iterations}, {@code time} (the JMH
 * settings of the run), {@code memoryKeys} (the keys {@link MemoryFootprint} used),
 * {@code loadBefore} (the load averages when the run started), {@code loadPeak} (the highest
 * one-minute load average seen during it) and {@code elapsed} (seconds the run took so far).
 */
public final class BenchmarkReport {

	/** Where {@code benchmarks/run-http.sh} writes its figures; the markers are that script's too. */
	static final ReportSection HTTP_SECTION = new ReportSection(
			"<!-- http benchmarks: written by benchmarks/run-http.sh -->", "<!-- end of http benchmarks -->");

	private static final String ONE_KEY = "OneKeyBenchmark";

	private static final String WINDOW = "SlidingWindowBenchmark";

	private static final String RANDOM_KEYS = "RandomKeysBenchmark";

	private static final String ANNOTATED = "AnnotatedCallBenchmark";

	private static final String POOL = "PoolCallBenchmark";

	private static final String ASYNC = "AsyncCallBenchmark";

	private static final String RETRY_BUDGET = "RetryBudgetBenchmark";

	private static final String REJECTED = "RejectedCallBenchmark";

	private static final String PAUSE = "PauseCheckBenchmark";

	private static final String CONCURRENCY = "ConcurrencyPermitBenchmark";

	/** {@value #CONCURRENCY}'s fixed limit, ours and Resilience4j's bulkhead; the others adapt. */
	private static final List<String> CONCURRENCY_FIXED = List.of("ours_fixed", "resilience4j");

	/** {@value #PAUSE}'s methods, in the order of its table: a limiter and a number of threads each. */
	private static final List<String> PAUSE_METHODS = List.of("bucketOneThread", "bucketTwoThreads", "windowOneThread",
			"windowTwoThreads");

	/** {@value #PAUSE}'s settings, in the order of its table: the first is the one the others are divided by. */
	private static final List<String> PAUSE_IMPLS = List.of("disabled", "enabled", "other_key_paused");

	/** Keyed peers of a named key, as their users write them. */
	private static final List<String> ONE_KEY_KEYED = List.of("resilience4j_registry", "bucket4j_caffeine");

	/** Bare, keyless buckets. */
	private static final List<String> ONE_KEY_COMPETITORS = List.of("resilience4j", "bucket4j", "guava");

	private static final long HIGH_LIMIT = 1_000_000;

	private static final long LOW_LIMIT = 1_000;

	private final List<Result> results;

	private final Map<String, Double> bytesPerKey;

	private final Map<String, String> settings;

	private final Map<String, String> versions;

	BenchmarkReport(List<Result> results, Map<String, Double> bytesPerKey, Map<String, String> settings,
			Map<String, String> versions) {
		this.results = results;
		this.bytesPerKey = bytesPerKey;
		this.settings = settings;
		this.versions = versions;
	}

	public static void main(String[] args) throws IOException {
		Map<String, String> arguments = new HashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			if (equals < 1) {
				throw new IllegalArgumentException("Expected name=value but got '" + arg + "'");
			}
			arguments.put(arg.substring(0, equals), arg.substring(equals + 1));
		}
		Path jmh = Path.of(required(arguments, "jmh"));
		Path memory = Path.of(required(arguments, "memory"));
		Path out = Path.of(required(arguments, "out"));
		List<Result> results = Files.exists(jmh) ? Result.parseCsv(Files.readAllLines(jmh)) : List.of();
		Map<String, Double> bytesPerKey = Files.exists(memory) ? parseMemory(Files.readAllLines(memory)) : Map.of();
		BenchmarkReport report = new BenchmarkReport(results, bytesPerKey, arguments,
				versions(System.getProperty("java.class.path", "")));
		Files.createDirectories(out.toAbsolutePath().getParent());
		String previous = Files.exists(out) ? Files.readString(out) : "";
		Files.writeString(out, AdaptiveConcurrencySimulation.SECTION.keep(previous, HTTP_SECTION.keep(previous,
				RedisPauseCost.SECTION.keep(previous, RedisBenchmarkReport.SECTION.keep(previous, report.toMarkdown(machine()))))));
		System.out.println("Wrote " + out);
	}

	private static String required(Map<String, String> arguments, String name) {
		String value = arguments.get(name);
		if (value == null) {
			throw new IllegalArgumentException("Missing argument " + name + "=...");
		}
		return value;
	}

	static Map<String, Double> parseMemory(List<String> lines) {
		Map<String, Double> bytesPerKey = new LinkedHashMap<>();
		for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
			String[] fields = line.split(",");
			if (fields.length == 3) {
				bytesPerKey.put(fields[0], Double.parseDouble(fields[2]));
			}
		}
		return bytesPerKey;
	}

	/**
	 * Returns the version of each library under test, read from its jar's name on the class path.
	 * @param classPath the class path
	 * @return versions by library name
	 */
	static Map<String, String> versions(String classPath) {
		Map<String, String> artifacts = new LinkedHashMap<>();
		artifacts.put("Bucket4j", "bucket4j_jdk17-core");
		artifacts.put("Resilience4j", "resilience4j-ratelimiter");
		artifacts.put("Resilience4j bulkhead", "resilience4j-bulkhead");
		artifacts.put("Netflix concurrency-limits", "concurrency-limits-core");
		artifacts.put("Guava", "guava");
		artifacts.put("Caffeine", "caffeine");
		artifacts.put("Commons Pool 2", "commons-pool2");
		artifacts.put("Spring Boot", "spring-boot");
		artifacts.put("JMH", "jmh-core");
		Map<String, String> versions = new LinkedHashMap<>();
		artifacts.forEach((library, artifact) -> {
			Pattern jar = Pattern.compile("(^|[/\\\\])" + Pattern.quote(artifact) + "-(\\d[^/\\\\]*)\\.jar$");
			for (String entry : classPath.split(Pattern.quote(java.io.File.pathSeparator))) {
				Matcher matcher = jar.matcher(entry);
				if (matcher.find()) {
					versions.put(library, matcher.group(2));
					break;
				}
			}
		});
		return versions;
	}

	private static Optional<String> memory() {
		try {
			return Files.readAllLines(Path.of("/proc/meminfo"))
				.stream()
				.filter((line) -> line.startsWith("MemTotal:"))
				.map((line) -> line.replaceAll("\\D+", ""))
				.map((kib) -> (Long.parseLong(kib) / (1024 * 1024)) + " GiB")
				.findFirst();
		}
		catch (IOException | NumberFormatException ex) {
			return Optional.empty();
		}
	}

	/**
	 * Returns whether a one-minute load average means other work shared the cores: the
	 * benchmarks alone, at most two threads and the JIT, keep it near 2 or below.
	 */
	private static boolean busy(String loadAverage) {
		try {
			return Double.parseDouble(loadAverage.split("\\s+")[0]) > 2.5;
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

	private static String machine() {
		@Nullable String cpu = null;
		long processors = 0;
		try {
			for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
				if (cpu == null && line.startsWith("model name")) {
					cpu = line.substring(line.indexOf(':') + 1).trim();
				}
				if (line.startsWith("processor")) {
					processors++;
				}
			}
		}
		catch (IOException ex) {
			// Not Linux: the architecture is all there is.
		}
		StringBuilder machine = new StringBuilder();
		machine.append("- CPU: ").append((cpu != null) ? cpu : System.getProperty("os.arch")).append('\n');
		machine.append("- Cores available to the JVM: ").append(Runtime.getRuntime().availableProcessors());
		if (processors > 0) {
			machine.append(" (").append(processors).append(" in /proc/cpuinfo)");
		}
		machine.append('\n');
		memory().ifPresent((memory) -> machine.append("- Memory: ").append(memory)
			.append("; benchmark forks run with -Xms1g -Xmx1g\n"));
		machine.append("- OS: ")
			.append(System.getProperty("os.name"))
			.append(' ')
			.append(System.getProperty("os.version"))
			.append('\n');
		machine.append("- JDK: ")
			.append(System.getProperty("java.vm.name"))
			.append(' ')
			.append(System.getProperty("java.runtime.version"))
			.append(" (")
			.append(System.getProperty("java.vm.vendor"))
			.append(")\n");
		return machine.toString();
	}

	/**
	 * Renders the report.
	 * @param machine the Markdown list describing the machine
	 * @return the Markdown
	 */
	String toMarkdown(String machine) {
		StringBuilder md = new StringBuilder();
		md.append("# Rate limiter benchmarks\n\n");
		md.append("Generated by `benchmarks/run.sh` on ")
			.append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
			.append("; do not edit, run it again. Scores are throughput in operations per microsecond ")
			.append("(higher is better), ± the 99.9% confidence half-interval JMH reports. A ratio ")
			.append("ours ÷ X above 1 means we are faster than X; every ratio compares results of ")
			.append("this one run.\n\n");
		appendTargets(md);
		md.append("## Machine and settings\n\n").append(machine);
		md.append("- JMH ")
			.append(this.versions.getOrDefault("JMH", "?"))
			.append(": throughput mode, ")
			.append(this.settings.getOrDefault("forks", "1"))
			.append(" fork, warmup ")
			.append(this.settings.getOrDefault("warmupIterations", "2"))
			.append(" × ")
			.append(this.settings.getOrDefault("warmupTime", "1s"))
			.append(", measurement ")
			.append(this.settings.getOrDefault("iterations", "3"))
			.append(" × ")
			.append(this.settings.getOrDefault("time", "1s"))
			.append('\n');
		md.append("- Libraries: ")
			.append(this.versions.entrySet()
				.stream()
				.filter((entry) -> !entry.getKey().equals("JMH"))
				.map((entry) -> entry.getKey() + " " + entry.getValue())
				.collect(Collectors.joining(", ")))
			.append('\n');
		String loadBefore = this.settings.get("loadBefore");
		String loadPeak = this.settings.get("loadPeak");
		if (loadBefore != null && loadPeak != null) {
			md.append("- Load average before the run (1, 5, 15 min): ").append(loadBefore)
				.append("; highest 1-minute load average during it: ").append(loadPeak);
			md.append(busy(loadPeak) ? ". **The machine was busy**: a benchmark uses at most 2 threads, so other "
					+ "processes competed for the cores, and results measured at different moments of this run "
					+ "are less comparable" : "").append('\n');
		}
		String elapsed = this.settings.get("elapsed");
		if (elapsed != null) {
			md.append("- The whole run, build included, took ").append(elapsed).append(" s\n");
		}
		md.append('\n');
		appendOneKey(md);
		appendWindow(md);
		appendRandomKeys(md);
		appendAnnotated(md);
		appendMemory(md);
		appendPool(md);
		appendAsync(md);
		appendRetryBudget(md);
		appendRejected(md);
		appendPauseCheck(md);
		appendConcurrencyPermit(md);
		md.append("## How to run\n\n");
		md.append("```\nbenchmarks/run.sh                      # everything, then this file\n");
		md.append("benchmarks/run.sh OneKeyBenchmark      # only benchmarks matching a JMH regex\n");
		md.append("WARMUP_ITERATIONS=5 ITERATIONS=10 TIME=2s FORKS=2 benchmarks/run.sh\n```\n\n");
		md.append("Raw results stay in `benchmarks/target/results/` (`jmh.csv`, `memory.csv`, `jmh.log`).\n");
		return md.toString();
	}

	private void appendTargets(StringBuilder md) {
		List<String> floors = new ArrayList<>();
		md.append("## Targets\n\n");
		md.append("| Target | Measured | Status |\n| --- | --- | --- |\n");
		for (String method : List.of("oneThread", "twoThreads")) {
			String threads = method.equals("oneThread") ? "1 thread" : "2 threads";
			List<Result> group = find(ONE_KEY, method, null);
			Optional<Result> named = group.stream().filter((result) -> result.impl().equals("ours_named_key")).findFirst();
			Optional<Result> bestKeyed = best(group, ONE_KEY_KEYED);
			Optional<Result> bestBare = best(group, ONE_KEY_COMPETITORS);
			compare(md, "One named key admitting, " + threads + ": ours ≥ 1.5× the best keyed peer", named, bestKeyed,
					1.5, true);
			compare(md, "One named key admitting, " + threads + ": ours ≥ 0.8× the best bare bucket", named, bestBare,
					0.8, true);
			floors.add(floor(group, bestBare, bestKeyed));
		}
		Optional<Result> oursHigh = one(WINDOW, "ours", HIGH_LIMIT);
		Optional<Result> oursLow = one(WINDOW, "ours", LOW_LIMIT);
		Optional<Result> bucketHigh = one(WINDOW, "bucket4j", HIGH_LIMIT);
		compare(md, "Exact window of 1,000,000 per 100 ms: ours ≥ 0.5× a Bucket4j bucket of that rate", oursHigh,
				bucketHigh, 0.5);
		compare(md, "Exact window: ours at 1,000,000 per 100 ms not much slower than at 1,000 "
				+ "(taken as ≥ 0.8×)", oursHigh, oursLow, 0.8);
		compare(md, "100,000 random keys: ours ≥ 1.2× Bucket4j buckets in Caffeine", one(RANDOM_KEYS, "ours", 0),
				one(RANDOM_KEYS, "bucket4j_caffeine", 0), 1.2);
		compare(md, "Annotated call: ours ≥ 1.5× Resilience4j's @RateLimiter", one(ANNOTATED, "ours", 0),
				one(ANNOTATED, "resilience4j", 0), 1.5);
		compare(md, "Annotated `Mono`: ours ≥ 2× Resilience4j's @RateLimiter (Reactor)", one(ASYNC, "mono", "ours"),
				one(ASYNC, "mono", "resilience4j"), 2);
		compare(md, "Annotated `CompletableFuture`: ours ≥ 2× Resilience4j's @Retry", one(ASYNC, "future", "ours"),
				one(ASYNC, "future", "resilience4j"), 2);
		compare(md, "Retry budget, 2 threads: ours ≥ 2× the exact log under a lock of earlier versions",
				one(RETRY_BUDGET, "twoThreads", "ours"), one(RETRY_BUDGET, "twoThreads", "locked_log"), 2);
		compare(md, "`@WithConnection` call: ours ≥ 2× Resilience4j's `ThreadPoolBulkhead` + `TimeLimiter`",
				one(POOL, "ours", 0), one(POOL, "resilience4j", 0), 2);
		compare(md, "Rejection through `@RateLimited`: ours ≥ 3× the rejection with a stack trace (as in earlier versions)",
				one(REJECTED, "ours", 0), one(REJECTED, "stack_traces", 0), 3);
		for (String method : PAUSE_METHODS) {
			compare(md, "Pause on throttle enabled, no pause in force, " + pauseLimiter(method) + ", "
					+ (method.endsWith("OneThread") ? "1 thread" : "2 threads") + ": ≥ 0.95× disabled",
					one(PAUSE, method, "enabled"), one(PAUSE, method, "disabled"), 0.95);
		}
		Double ours = this.bytesPerKey.get("ours");
		target(md, "Heap per recently used bucket-only key: ours ≤ 150 B",
				(ours != null) ? bytes(ours) : "", (ours != null) ? ours <= 150 : null);
		md.append('\n');
		floors.stream().filter((line) -> !line.isEmpty()).forEach((line) -> md.append(line).append("\n\n"));
	}

	/**
	 * Why one key cannot go much faster: every contender reads the clock once per decision, and
	 * reading it alone is measured too; and what the keyed target asks measured against the
	 * fastest keyless bucket. Empty when the floor or a competitor is missing.
	 */
	private String floor(List<Result> group, Optional<Result> bestBare, Optional<Result> bestKeyed) {
		Optional<Result> clock = group.stream().filter((result) -> result.impl().equals("clock_only")).findFirst();
		if (clock.isEmpty() || bestBare.isEmpty() || bestKeyed.isEmpty()) {
			return "";
		}
		double floor = clock.get().score();
		double bare = bestBare.get().score();
		double keyed = bestKeyed.get().score();
		return String.format(Locale.ROOT, "One key, %d thread(s): reading the clock alone, which every contender "
				+ "does once per decision, runs at %s ops/µs; the best bare bucket reaches %.0f%% of that, so 0.8× "
				+ "the best bare bucket needs %.0f%% of the clock's own speed for the lookup and the decision, and "
				+ "1.5× the best keyed peer needs %.0f%% of it. That target is %.2f× the best bare bucket: a "
				+ "decision with a key lookup faster than any keyless bucket measured here.",
				group.get(0).threads(), format(floor), 100 * bare / floor, 80 * bare / floor, 150 * keyed / floor,
				1.5 * keyed / bare);
	}

	private static Optional<Result> best(List<Result> group, List<String> impls) {
		return group.stream()
			.filter((result) -> impls.contains(result.impl()))
			.max((a, b) -> Double.compare(a.score(), b.score()));
	}

	private void compare(StringBuilder md, String target, Optional<Result> ours, Optional<Result> theirs,
			double atLeast) {
		compare(md, target, ours, theirs, atLeast, false);
	}

	/** With {@code nameTheirs}, says which competitor was the best one. */
	private void compare(StringBuilder md, String target, Optional<Result> ours, Optional<Result> theirs,
			double atLeast, boolean nameTheirs) {
		if (ours.isEmpty() || theirs.isEmpty()) {
			target(md, target, "", null);
			return;
		}
		String measured = format(ours.get().score()) + " vs " + format(theirs.get().score()) + " ops/µs"
				+ (nameTheirs ? " (" + label(theirs.get().impl()) + ")" : "") + " = "
				+ ratio(ours.get(), theirs.get());
		target(md, target, measured, ours.get().score() >= atLeast * theirs.get().score());
	}

	private static void target(StringBuilder md, String target, String measured, @Nullable Boolean met) {
		String status = (met == null) ? "not measured" : (met ? "**met**" : "**not met**");
		md.append("| ").append(target).append(" | ").append(measured).append(" | ").append(status).append(" |\n");
	}

	private void appendOneKey(StringBuilder md) {
		md.append("## 1. One key, every call admitted\n\n");
		md.append("One bucket with limits so high that nothing is rejected (")
			.append(String.format(Locale.ROOT, "%,d", Contenders.UNLIMITED_RATE))
			.append(" per second), asked by one thread and by two threads sharing it. Ours with the empty key ")
			.append("(the limiter's shared bucket) and with the key \"k\", as `@RateLimited(key = ...)` uses it. ")
			.append("Keyed peers as their users write them: Resilience4j's `RateLimiterRegistry.rateLimiter(\"k\")` ")
			.append("then `acquirePermission()`, and Bucket4j buckets in a Caffeine cache looked up by key. Bare, ")
			.append("keyless buckets: Resilience4j's `AtomicRateLimiter` with `acquirePermission()`, a local Bucket4j ")
			.append("bucket with `tryConsume(1)`, Guava's `RateLimiter.tryAcquire()`.\n\n");
		List<String> competitors = new ArrayList<>(ONE_KEY_KEYED);
		competitors.addAll(ONE_KEY_COMPETITORS);
		table(md, find(ONE_KEY, null, null), competitors, "Threads",
				(result) -> Integer.toString(result.threads()));
	}

	private void appendWindow(StringBuilder md) {
		md.append("## 2. Exact sliding window\n\n");
		md.append("Our limiter with one window (window-algorithm `log`, exact) of a limit per 100 ms against ")
			.append("a Bucket4j bucket of the same rate (capacity = limit, refilled greedily by limit per ")
			.append("100 ms); one thread; every decision counts, admitted or rejected.\n\n");
		table(md, find(WINDOW, null, null), List.of("bucket4j"), "Limit per 100 ms",
				(result) -> String.format(Locale.ROOT, "%,d", Long.parseLong(result.limit())));
	}

	private void appendRandomKeys(StringBuilder md) {
		md.append("## 3. 100,000 random keys\n\n");
		md.append("One thread asks for keys drawn uniformly from 100,000 precomputed strings; each key has a ")
			.append("bucket of 100 refilled at 100 per second. Ours `tryAcquire(key, 1)` on a bucket-only ")
			.append("limiter against `cache.get(key, k -> newBucket()).tryConsume(1)` on a Caffeine cache ")
			.append("of Bucket4j buckets (maximumSize 1,000,000).\n\n");
		table(md, find(RANDOM_KEYS, null, null), List.of("bucket4j_caffeine"), "Threads",
				(result) -> Integer.toString(result.threads()));
	}

	private void appendAnnotated(StringBuilder md) {
		md.append("## 4. Annotated call\n\n");
		md.append("The same method returning its argument, on a Spring bean, under our `@RateLimited(\"bench\")` ")
			.append("and under Resilience4j's `@RateLimiter(name = \"bench\")` (resilience4j-spring-boot4), each ")
			.append("in a non-web Spring Boot application of its own, both admitting every call. The baseline ")
			.append("`plain` is the unannotated method on an unproxied bean, which the JIT inlines: it shows ")
			.append("the cost of the call itself, not a competitor.\n\n");
		table(md, find(ANNOTATED, null, null), List.of("resilience4j"), "Threads",
				(result) -> Integer.toString(result.threads()));
	}

	private void appendPool(StringBuilder md) {
		md.append("## 6. Call with a pooled connection and a deadline\n\n");
		md.append("Work that does nothing, with a connection of a pool of 4, one thread calling: our ")
			.append("`@WithConnection(pool = \"bench\", timeout = \"30s\")` on a Spring bean (checkout, hand-off ")
			.append("to a worker thread carrying the caller's context, timed wait, return); a bare Commons Pool 2 ")
			.append("`borrowObject`/`returnObject` on the caller's thread, which puts no deadline on the work ")
			.append("(the floor of pooling alone); Resilience4j's `ThreadPoolBulkhead` (4 threads) with a ")
			.append("`TimeLimiter` of 30 s, its way of putting a deadline on work. The deadline that holds even ")
			.append("when the work hangs costs a thread hand-off; the ratio to Commons Pool 2 shows that price.\n\n");
		table(md, find(POOL, null, null), List.of("commons_pool2", "resilience4j"), "Threads",
				(result) -> Integer.toString(result.threads()));
	}

	private void appendAsync(StringBuilder md) {
		md.append("## 7. Asynchronous annotated calls\n\n");
		md.append("From the call to its outcome, one thread calling and waiting for it: a method returning ")
			.append("`Mono.just(value)` under our `@RateLimited(\"bench\")` and under Resilience4j's ")
			.append("`@RateLimiter(name = \"bench\")` (its Reactor aspect, resilience4j-reactor), every call admitted, ")
			.append("the `Mono` subscribed with `block()`; a method returning a completed `CompletableFuture` under ")
			.append("our `@Retryable(\"bench\")` and Resilience4j's `@Retry(name = \"bench\")`, succeeding at once, ")
			.append("the future awaited with `join()`. Each in a non-web Spring Boot application of its own; ")
			.append("`plain` is the unannotated method on an unproxied bean.\n\n");
		table(md, find(ASYNC, null, null), List.of("resilience4j"), "Call",
				(result) -> result.method().equals("mono") ? "`Mono`, rate limited" : "`CompletableFuture`, retried");
	}

	private void appendRetryBudget(StringBuilder md) {
		md.append("## 8. Retry budget\n\n");
		md.append("One retry budget (ratio 0.2, 10 retries per second, window 100 ms) used as a retried call uses ")
			.append("it: every call records its first attempt, every fourth asks for a retry, granted or refused; ")
			.append("one thread, and two threads sharing the budget. Ours (100 time buckets, no lock) against ")
			.append("the same rule kept exactly in a log of every call under a lock, as our budget was built ")
			.append("in earlier versions.\n\n");
		table(md, find(RETRY_BUDGET, null, null), List.of("locked_log"), "Threads",
				(result) -> Integer.toString(result.threads()));
	}

	private void appendRejected(StringBuilder md) {
		md.append("## 9. A rejected call\n\n");
		md.append("One call through `@RateLimited(name = \"rejecting\", key = \"#apiKey\")` on a Spring bean whose ")
			.append("limiter (two exact windows, as the sample's `partner-server`) was drained first, so every call ")
			.append("is rejected and the caller catches the `RateLimitExceededException`; beside it the same ")
			.append("rejection recording its stack trace (`resilience.rate-limit-stack-traces=true`, what every ")
			.append("rejection did in earlier versions) and an admitted call on a limiter that admits everything. One ")
			.append("thread. `benchmarks/run-http.sh` measures the same over HTTP with `wrk`.\n\n");
		table(md, find(REJECTED, null, null), List.of("stack_traces", "admitted"), "Threads",
				(result) -> Integer.toString(result.threads()));
	}

	private void appendPauseCheck(StringBuilder md) {
		md.append("## 10. Pause on throttle, no pause in force\n\n");
		md.append("What `pause-on-throttle` costs a decision of the in-memory store while no key is paused: the same ")
			.append("limiter with it disabled and enabled, `tryAcquire(\"k\", 1)` admitting every call, one thread and ")
			.append("two threads sharing the key; a token bucket (decided without a lock) and an exact window (decided ")
			.append("under the key's monitor) of limits never reached. Beside them, pausing enabled while another key ")
			.append("of the limiter is paused and this one is not, which costs a clock read and a lookup in the ")
			.append("pauses: not under the target. Enabled and disabled take the same path while no pause is in ")
			.append("force (one volatile read), so their ratio shows this run's noise: at 1 fork of 3 × 1 s the ")
			.append("error bars are wider than the 5% judged. CONTRIBUTING.md says how the target was judged, ")
			.append("against the commit before pausing too.\n\n");
		List<Result> results = find(PAUSE, null, null);
		if (results.isEmpty()) {
			md.append("Not measured in this run.\n\n");
			return;
		}
		md.append("| Limiter | Threads | pause-on-throttle | ops/µs | ± error | ÷ disabled |\n");
		md.append("| --- | ---: | --- | ---: | ---: | ---: |\n");
		for (String method : PAUSE_METHODS) {
			Optional<Result> disabled = one(PAUSE, method, PAUSE_IMPLS.get(0));
			for (String impl : PAUSE_IMPLS) {
				one(PAUSE, method, impl).ifPresent((result) -> md.append("| ")
					.append(pauseLimiter(method))
					.append(" | ")
					.append(result.threads())
					.append(" | ")
					.append(switch (impl) {
						case "enabled" -> "enabled, no key paused";
						case "other_key_paused" -> "enabled, another key paused";
						default -> impl;
					})
					.append(" | ")
					.append(format(result.score()))
					.append(" | ")
					.append(format(result.error()))
					.append(" | ")
					.append((impl.equals(PAUSE_IMPLS.get(0)) || disabled.isEmpty()) ? "—" : ratio(result, disabled.get()))
					.append(" |\n"));
			}
		}
		md.append('\n');
	}

	private void appendConcurrencyPermit(StringBuilder md) {
		md.append("## 11. A call through a concurrency permit\n\n");
		md.append("One call on one key whose work does nothing: the permit taken and given back at once, one thread ")
			.append("and two threads sharing the key, every call admitted. A fixed limit of ")
			.append(ConcurrencyPermitBenchmark.MAX_CONCURRENT)
			.append(" calls in flight: ours (`max-concurrent` alone, `acquire(\"k\", 1, Duration.ZERO)` then ")
			.append("`close()`) against Resilience4j's `SemaphoreBulkhead` (`tryAcquirePermission()` then ")
			.append("`onComplete()`). An adaptive one: ours (`max-concurrent: adaptive`, `gradient`, each ended ")
			.append("call a sample) against Netflix concurrency-limits' own `SimpleLimiter` with the same ")
			.append("`Gradient2Limit` (`acquire` then the listener's `onSuccess()`), both from ")
			.append(ConcurrencyPermitBenchmark.ADAPTIVE.initialLimit())
			.append(" between ")
			.append(ConcurrencyPermitBenchmark.ADAPTIVE.minLimit())
			.append(" and ")
			.append(ConcurrencyPermitBenchmark.ADAPTIVE.maxLimit())
			.append(" (never below the threads, so that no call is rejected). Ours is a limiter with keys, ")
			.append("its decision a record of the key's quotas; theirs are keyless counters.\n\n");
		table(md, find(CONCURRENCY, null, null), List.of("resilience4j", "netflix_gradient2"), "Threads, limit",
				(result) -> result.threads() + ", " + (CONCURRENCY_FIXED.contains(result.impl())
						? "fixed " + ConcurrencyPermitBenchmark.MAX_CONCURRENT : "adaptive"));
	}

	private static String pauseLimiter(String method) {
		return method.startsWith("bucket") ? "token bucket" : "exact window";
	}

	private void appendMemory(StringBuilder md) {
		md.append("## 5. Heap per key\n\n");
		md.append("Heap retained per recently used key of a bucket-only limiter, over ")
			.append(String.format(Locale.ROOT, "%,d", Long.parseLong(this.settings.getOrDefault("memoryKeys", "200000"))))
			.append(" keys, measured by `MemoryFootprint` ")
			.append("(not JMH): used heap after full collections, before and after one call per key, divided by ")
			.append("the number of keys; the key strings are created beforehand and not counted. Each bucket ")
			.append("holds 10 tokens refilled at one per hour, so no key is forgotten before the second measure. ")
			.append("Serial collector, 1 GiB heap. Lower is better.\n\n");
		if (this.bytesPerKey.isEmpty()) {
			md.append("Not measured in this run.\n\n");
			return;
		}
		Double ours = this.bytesPerKey.get("ours");
		md.append("| Implementation | Bytes per key | Theirs ÷ ours |\n| --- | ---: | ---: |\n");
		List<String> impls = new ArrayList<>(this.bytesPerKey.keySet());
		impls.sort((a, b) -> Boolean.compare(!a.startsWith("ours"), !b.startsWith("ours")));
		impls.forEach((impl) -> {
			double bytes = this.bytesPerKey.get(impl);
			String relative = (impl.equals("ours") || ours == null) ? "—"
					: String.format(Locale.ROOT, "%.2f×", bytes / ours);
			md.append("| ").append(label(impl)).append(" | ").append(bytes(bytes)).append(" | ").append(relative)
				.append(" |\n");
		});
		md.append('\n');
	}

	/**
	 * Appends a table of results, grouped, with our rows first in each group and one ratio column
	 * per competitor, computed against that competitor's result in the same group.
	 */
	private void table(StringBuilder md, List<Result> results, List<String> competitors, String groupHeader,
			Function<Result, String> group) {
		if (results.isEmpty()) {
			md.append("Not measured in this run.\n\n");
			return;
		}
		md.append("| ").append(groupHeader).append(" | Implementation | ops/µs | ± error |");
		competitors.forEach((competitor) -> md.append(" ours ÷ ").append(label(competitor)).append(" |"));
		md.append("\n| --- | --- | ---: | ---: |");
		competitors.forEach((competitor) -> md.append(" ---: |"));
		md.append('\n');
		Map<String, List<Result>> groups = results.stream()
			.collect(Collectors.groupingBy(group, LinkedHashMap::new, Collectors.toList()));
		groups.forEach((name, members) -> {
			List<Result> ordered = new ArrayList<>(members.stream().filter(Result::isOurs).toList());
			members.stream().filter((result) -> !result.isOurs()).forEach(ordered::add);
			for (Result result : ordered) {
				md.append("| ").append(name).append(" | ").append(label(result.impl())).append(" | ");
				md.append(format(result.score())).append(" | ").append(format(result.error())).append(" |");
				for (String competitor : competitors) {
					Optional<Result> theirs = members.stream()
						.filter((other) -> other.impl().equals(competitor))
						.findFirst();
					md.append(' ')
						.append((result.isOurs() && theirs.isPresent()) ? ratio(result, theirs.get()) : "—")
						.append(" |");
				}
				md.append('\n');
			}
		});
		md.append('\n');
	}

	private List<Result> find(String benchmark, @Nullable String method, @Nullable Long limit) {
		return this.results.stream()
			.filter((result) -> result.benchmark().equals(benchmark))
			.filter((result) -> method == null || result.method().equals(method))
			.filter((result) -> limit == null || result.limit().equals(Long.toString(limit)))
			.toList();
	}

	private Optional<Result> one(String benchmark, String impl, long limit) {
		return find(benchmark, null, (limit > 0) ? limit : null).stream()
			.filter((result) -> result.impl().equals(impl))
			.findFirst();
	}

	private Optional<Result> one(String benchmark, String method, String impl) {
		return find(benchmark, method, null).stream().filter((result) -> result.impl().equals(impl)).findFirst();
	}

	private String label(String impl) {
		return switch (impl) {
			case "ours_shared_key" -> "ours, key \"\"";
			case "ours_named_key" -> "ours, key \"k\"";
			case "resilience4j" -> "Resilience4j";
			case "resilience4j_registry" -> "Resilience4j registry by key";
			case "commons_pool2" -> "Commons Pool 2";
			case "bucket4j" -> "Bucket4j";
			case "bucket4j_caffeine" -> "Bucket4j in Caffeine";
			case "guava" -> "Guava";
			case "clock_only" -> "clock read alone (the floor)";
			case "locked_log" -> "exact log under a lock (earlier versions)";
			case "stack_traces" -> "rejected, with a stack trace (earlier versions)";
			case "admitted" -> "admitted";
			case "ours_fixed", "ours_adaptive" -> "ours";
			case "netflix_gradient2" -> "Netflix SimpleLimiter + Gradient2Limit";
			default -> impl;
		};
	}

	private static String ratio(Result ours, Result theirs) {
		double ratio = ours.score() / theirs.score();
		return String.format(Locale.ROOT, (ratio < 0.1) ? "%.3f×" : "%.2f×", ratio);
	}

	private static String bytes(double bytes) {
		return String.format(Locale.ROOT, "%.1f B", bytes);
	}

	private static String format(double value) {
		if (Double.isNaN(value)) {
			return "—";
		}
		return String.format(Locale.ROOT, (value >= 100) ? "%.1f" : (value >= 1) ? "%.2f" : "%.4f", value);
	}

	/**
	 * One JMH result.
	 *
	 * @param benchmark the benchmark class's simple name
	 * @param method the benchmark method
	 * @param impl the {@code impl} parameter
	 * @param limit the {@code limit} parameter, empty if none
	 * @param threads the threads that ran it
	 * @param score the mean throughput
	 * @param error the half-width of the 99.9% confidence interval, NaN if unknown
	 */
	record Result(String benchmark, String method, String impl, String limit, int threads, double score,
			double error) {

		boolean isOurs() {
			return this.impl.startsWith("ours");
		}

		/**
		 * Parses JMH's CSV result format ({@code -rf csv}).
		 * @param lines the file's lines, header first
		 * @return the results, in file order
		 */
		static List<Result> parseCsv(List<String> lines) {
			if (lines.isEmpty()) {
				return List.of();
			}
			List<String> header = fields(lines.get(0));
			List<Result> results = new ArrayList<>();
			for (String line : lines.subList(1, lines.size())) {
				if (line.isBlank()) {
					continue;
				}
				List<String> fields = fields(line);
				Function<String, String> column = (name) -> {
					int index = header.indexOf(name);
					return (index >= 0 && index < fields.size()) ? fields.get(index) : "";
				};
				String name = column.apply("Benchmark");
				String[] parts = name.split("\\.");
				results.add(new Result(parts[parts.length - 2], parts[parts.length - 1], column.apply("Param: impl"),
						column.apply("Param: limit"), Integer.parseInt(column.apply("Threads")),
						number(column.apply("Score")), number(column.apply("Score Error (99.9%)"))));
			}
			return results;
		}

		private static double number(String field) {
			return field.isBlank() ? Double.NaN : Double.parseDouble(field);
		}

		private static List<String> fields(String line) {
			List<String> fields = new ArrayList<>();
			StringBuilder field = new StringBuilder();
			boolean quoted = false;
			for (int i = 0; i < line.length(); i++) {
				char c = line.charAt(i);
				if (c == '"') {
					if (quoted && i + 1 < line.length() && line.charAt(i + 1) == '"') {
						field.append('"');
						i++;
					}
					else {
						quoted = !quoted;
					}
				}
				else if (c == ',' && !quoted) {
					fields.add(field.toString());
					field.setLength(0);
				}
				else {
					field.append(c);
				}
			}
			fields.add(field.toString());
			return fields;
		}

	}

}
