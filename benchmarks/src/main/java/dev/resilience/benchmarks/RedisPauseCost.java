package dev.resilience.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.jspecify.annotations.Nullable;

import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.redis.RedisRateLimitStore;
import dev.resilience.ratelimit.redis.RedisServer;

/**
 * What {@code pause-on-throttle} costs the Redis server while no pause is in force (issue 35's
 * target: the decision script's server time grows by less than 10%). A limiter that pauses sends
 * its key's pause as the script's last key, and the script reads it first (one {@code GET} of a
 * key that does not exist, in the same {@code EVALSHA}); one that does not is spared it.
 * <p>
 * For each {@link Shape} (the three decide scripts) and {@link Way} (every call admitted, every
 * call rejected), the same limiter with pausing disabled and enabled, each on a fresh server
 * ({@link RedisServer}), one thread, 100 keys in turn: as many decisions to warm up as are
 * measured, {@code CONFIG RESETSTAT}, the measured decisions, then the decide script's time from
 * {@code INFO commandstats} ({@code cmdstat_evalsha}'s {@code usec}; with max-concurrent, permits are held,
 * as their returns would be script calls too). The
 * rounds interleave disabled and enabled (ABBA), as the machine's load moves. With
 * {@code valgrind}, also the server's instructions per decision ({@link RedisInstructionCount}),
 * which move by a few tenths of a percent where the µs move by a tenth or more.
 * <p>
 * Writes {@code redis-pause.csv} ({@code shape,way,pause,round,decisions,scriptCalls,scriptMicros,segmentCalls,quietestSegmentMicros})
 * and, with valgrind, {@code redis-pause-instructions.csv}
 * ({@code shape,way,pause,round,decisions,instructionsPerDecision}) to the results folder, and
 * the section between {@link #START} and {@link #END} of the report.
 * <pre class="code">
 * benchmarks/run-redis.sh pause
 * java -cp ... dev.resilience.benchmarks.RedisPauseCost decisions=20000 rounds=6 instructions=2000 \
 *     instruction-rounds=2 results=benchmarks/target/results out=docs/benchmarks.md settings="..."
 * java -cp ... dev.resilience.benchmarks.RedisPauseCost shapes=BUCKET rounds=12 results=/tmp/bucket
 * </pre>
 * <p>
 * Options: {@code decisions} (20,000) measured per server, {@code rounds} (6), {@code shapes} (every
 * {@link Shape}, comma-separated), {@code instructions} (0: not counted) decisions per count under
 * valgrind, {@code instruction-rounds} (2), {@code results} (the CSVs' folder), {@code out} (the
 * report whose section is written; none without it) and {@code settings} (said in the section).
 */
public final class RedisPauseCost {

	static final String START = "<!-- redis pause benchmarks: written by benchmarks/run-redis.sh -->";

	static final String END = "<!-- end of redis pause benchmarks -->";

	/** Where these figures lie in the report. */
	static final ReportSection SECTION = new ReportSection(START, END);

	/** The target: the decide script's server time with pausing enabled under this many times that without. */
	static final double TARGET = 1.10;

	/** Pausing on, as a user turns it on; no pause is ever stored, so none is in force. */
	static final PauseOnThrottleSettings ENABLED = new PauseOnThrottleSettings(true, Set.of(429), Duration.ofSeconds(1),
			Duration.ofMinutes(10), 0.1);

	private static final int KEYS = 100;

	/**
	 * The measured decisions are read in this many parts: the one whose script took least time
	 * is the least disturbed by the machine's other work (a script's time holds any time the
	 * server was not running).
	 */
	static final int SEGMENTS = 10;

	/** The limiter's shapes: each of the three decide scripts, and the windows the other Redis benchmarks have. */
	enum Shape {

		/** {@code decide_bucket.lua}. */
		BUCKET("bucket only", "decide_bucket.lua"),
		/** {@code decide_window.lua}. */
		WINDOW("bucket + one exact window", "decide_window.lua"),
		/** {@code decide_window.lua}. */
		WINDOWS("bucket + two exact windows", "decide_window.lua"),
		/** {@code decide.lua}. */
		COUNTER("bucket + one counter window", "decide.lua"),
		/** {@code decide.lua}; permits are held, never returned ({@code release.lua} is a script call of its own). */
		CONCURRENT("bucket + max-concurrent", "decide.lua");

		final String label;

		final String script;

		Shape(String label, String script) {
			this.label = label;
			this.script = script;
		}

	}

	/** Which way every measured decision goes. */
	enum Way {

		/** Limits far above the calls (a billion a second; max-concurrent a million, the permits held). */
		ADMITTED,
		/**
		 * Limits of 1 an hour (windows of an hour and two), or max-concurrent 1 with each key's
		 * first permit held: every call after a key's first is rejected.
		 */
		REJECTED;

		String label() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

	private RedisPauseCost() {
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> options = new HashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			options.put(arg.substring(0, equals), arg.substring(equals + 1));
		}
		int decisions = Integer.parseInt(options.getOrDefault("decisions", "20000"));
		int rounds = Integer.parseInt(options.getOrDefault("rounds", "6"));
		int instructionDecisions = Integer.parseInt(options.getOrDefault("instructions", "0"));
		int instructionRounds = Integer.parseInt(options.getOrDefault("instruction-rounds", "2"));
		List<Shape> shapes = new ArrayList<>();
		for (String shape : options.getOrDefault("shapes", "BUCKET,WINDOW,WINDOWS,COUNTER,CONCURRENT").split(",")) {
			shapes.add(Shape.valueOf(shape.trim().toUpperCase(Locale.ROOT)));
		}
		Path results = Path.of(options.getOrDefault("results", "benchmarks/target/results"));
		Files.createDirectories(results);
		long started = System.nanoTime();
		String loadBefore = load();

		StringBuilder times = new StringBuilder("shape,way,pause,round,decisions,scriptCalls,scriptMicros,segmentCalls,quietestSegmentMicros\n");
		ClientResources resources = DefaultClientResources.create();
		for (int round = 1; round <= rounds; round++) {
			for (Shape shape : shapes) {
				for (Way way : Way.values()) {
					// ABBA: which goes first changes every round
					for (boolean pauses : (round % 2 == 1) ? new boolean[] { false, true } : new boolean[] { true, false }) {
						String line = shape + "," + way + "," + (pauses ? "enabled" : "disabled") + "," + round + ","
								+ decisions + "," + time(resources, shape, way, pauses, decisions);
						times.append(line).append('\n');
						System.out.println(line);
					}
				}
			}
		}
		resources.shutdown();
		Files.writeString(results.resolve("redis-pause.csv"), times);

		List<String> instructions = null;
		if (instructionDecisions > 0) {
			StringBuilder counted = new StringBuilder("shape,way,pause,round,decisions,instructionsPerDecision\n");
			String[] keys = RedisContenders.keys(KEYS);
			for (int round = 1; round <= instructionRounds; round++) {
				for (Shape shape : shapes) {
					for (Way way : Way.values()) {
						for (boolean pauses : (round % 2 == 1) ? new boolean[] { false, true }
								: new boolean[] { true, false }) {
							long count = RedisInstructionCount.count(shape + "-" + way,
									(client) -> limiter(client, shape, way, pauses, keys), KEYS, instructionDecisions);
							String line = shape + "," + way + "," + (pauses ? "enabled" : "disabled") + "," + round
									+ "," + instructionDecisions + "," + count;
							counted.append(line).append('\n');
							System.out.println(line);
						}
					}
				}
			}
			Files.writeString(results.resolve("redis-pause-instructions.csv"), counted);
			instructions = List.of(counted.toString().split("\n"));
		}

		String out = options.get("out");
		if (out != null) {
			String settings = decisions + " decisions measured in each of " + rounds + " rounds"
					+ ((instructions != null) ? ", " + instructionDecisions + " under valgrind in each of "
							+ instructionRounds + " rounds" : "")
					+ "; " + options.getOrDefault("settings", "redis-server") + "; "
					+ Duration.ofNanos(System.nanoTime() - started).toSeconds() + " s; load average (1, 5, 15 min) before "
					+ loadBefore + ", after " + load();
			String section = section(List.of(times.toString().split("\n")), instructions, settings);
			Path report = Path.of(out);
			String document = Files.exists(report) ? Files.readString(report) : "";
			Files.writeString(report, SECTION.replace(document, section));
		}
	}

	/**
	 * One measure on a fresh server: {@code scriptCalls,scriptMicros,segmentCalls,quietestSegmentMicros}
	 * of the measured decisions: the script's calls and microseconds, and the least microseconds
	 * of the {@link #SEGMENTS} parts they were read in, of {@code segmentCalls} calls each.
	 */
	private static String time(ClientResources resources, Shape shape, Way way, boolean pauses, int decisions) {
		try (RedisServer redis = RedisServer.start()) {
			RedisClient client = RedisContenders.client(redis, resources);
			String[] keys = RedisContenders.keys(KEYS);
			IntPredicate limiter = limiter(client, shape, way, pauses, keys);
			for (int i = 0; i < decisions; i++) {
				limiter.test(i % keys.length);
			}
			redis.commands().configResetstat();
			int admitted = 0;
			int segment = decisions / SEGMENTS;
			long quietest = Long.MAX_VALUE;
			long before = 0;
			for (int i = 0; i < decisions; i++) {
				admitted += limiter.test(i % keys.length) ? 1 : 0;
				if ((i + 1) % segment == 0) {
					long sum = Long.parseLong(field(redis.commands().info("commandstats"), "cmdstat_evalsha:", "usec="));
					quietest = Math.min(quietest, sum - before);
					before = sum;
				}
			}
			String stats = redis.commands().info("commandstats");
			long scriptCalls = Long.parseLong(field(stats, "cmdstat_evalsha:", "calls="));
			long scriptMicros = Long.parseLong(field(stats, "cmdstat_evalsha:", "usec="));
			if (admitted != ((way == Way.ADMITTED) ? decisions : 0) || scriptCalls != decisions
					|| stats.contains("cmdstat_eval:")) {
				throw new IllegalStateException(shape + " " + way + " (pause " + pauses + "): " + admitted
						+ " admitted and " + scriptCalls + " scripts for " + decisions + " decisions: " + stats);
			}
			client.shutdown();
			return scriptCalls + "," + scriptMicros + "," + segment + "," + quietest;
		}
	}

	/** The limiter of a shape, way and pausing: a test of key number {@code i}, admitted or not. */
	static IntPredicate limiter(RedisClient client, Shape shape, Way way, boolean pauses, String[] keys) {
		RateLimiter limiter = RedisContenders.ours(client, settings(shape, way, pauses));
		if (shape != Shape.CONCURRENT) {
			return (i) -> limiter.tryAcquire(keys[i], 1).isPermitted();
		}
		// Permits are never returned: a return is a script call of its own, which INFO commandstats
		// would not tell from the decisions'. Admitting, each key's lease set grows by one a call.
		// reserve: one decision, where acquire may ask again for a permit refused for concurrency alone
		return (i) -> limiter.reserve(keys[i], 1, Duration.ZERO).getDecision().isPermitted();
	}

	static RateLimiterSettings settings(Shape shape, Way way, boolean pauses) {
		boolean admitted = way == Way.ADMITTED;
		long rate = admitted ? RedisContenders.RATE : 1;
		Duration period = admitted ? Duration.ofSeconds(1) : Duration.ofHours(1);
		RateLimiterSettings.Builder settings = RateLimiterSettings.builder()
			.store(RedisRateLimitStore.TYPE)
			.pauseOnThrottle(pauses ? ENABLED : PauseOnThrottleSettings.DISABLED);
		switch (shape) {
			case BUCKET -> settings.tokenBucket(rate, rate, period, RefillStrategy.GREEDY);
			case WINDOW -> settings.tokenBucket(rate, rate, period, RefillStrategy.GREEDY).window(rate, period);
			case WINDOWS -> settings.tokenBucket(rate, rate, period, RefillStrategy.GREEDY)
				.window(rate, period)
				.window(rate, period.multipliedBy(2));
			case COUNTER -> settings.tokenBucket(rate, rate, period, RefillStrategy.GREEDY)
				.window(rate, period)
				.windowAlgorithm(WindowAlgorithm.COUNTER);
			case CONCURRENT -> settings
				.tokenBucket(RedisContenders.RATE, RedisContenders.RATE, Duration.ofSeconds(1), RefillStrategy.GREEDY)
				.maxConcurrent(admitted ? 1_000_000 : 1, Duration.ofHours(1));
		}
		return settings.build();
	}

	/** The load averages over 1, 5 and 15 minutes, from {@code /proc/loadavg}. */
	private static String load() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
			return fields[0] + " " + fields[1] + " " + fields[2];
		}
		catch (IOException | RuntimeException ex) {
			return "unknown";
		}
	}

	private static String field(String info, String line, String name) {
		int at = info.indexOf(line);
		if (at < 0) {
			throw new IllegalStateException("INFO commandstats has no " + line);
		}
		int start = info.indexOf(name, at) + name.length();
		int end = start;
		while (end < info.length() && Character.isDigit(info.charAt(end))) {
			end++;
		}
		return info.substring(start, end);
	}

	/**
	 * The section.
	 * @param times the lines of {@code redis-pause.csv}
	 * @param instructions the lines of {@code redis-pause-instructions.csv}, {@code null} when not counted
	 * @param settings how it ran, a sentence without its full stop
	 */
	static String section(List<String> times, @Nullable List<String> instructions, String settings) {
		Map<String, List<Double>> micros = perCall(times, 6, 5);
		Map<String, List<Double>> counts = (instructions != null) ? perCall(instructions, 5, -1) : Map.of();
		StringBuilder md = new StringBuilder(START).append("\n## Redis store: pause-on-throttle while no pause is in force\n\n");
		md.append("Generated by `benchmarks/run-redis.sh` (`benchmarks/run-redis.sh pause` writes this section alone); ")
			.append("do not edit, run it again. Issue 35's target: with `pause-on-throttle` enabled and no pause in force, ")
			.append("the decide script's server time grows by less than 10%. A limiter that pauses sends its key's pause ")
			.append("as the script's last key and the script reads it first (one `GET` of a key that does not exist, ")
			.append("in the same `EVALSHA`); one that does not pause is spared it. `RedisPauseCost`: the same limiter ")
			.append("with pausing disabled and enabled, each on a fresh `redis-server`, one thread, 100 keys in turn, ")
			.append("as many decisions to warm up as are measured; the decide script's µs per call from ")
			.append("`INFO commandstats` after `CONFIG RESETSTAT` (`cmdstat_evalsha`'s `usec` over its `calls`, one per decision); ")
			.append("the rounds interleave disabled and enabled (ABBA). Admitted: limits of a billion a second ")
			.append("(windows of 1 s and 2 s), max-concurrent a million with every permit held (a permit's return is a script ")
			.append("call of its own, which `INFO commandstats` would count with the decisions; each key's lease set grows ")
			.append("by one a call). Rejected: limits ")
			.append("of 1 an hour (windows of 1 h and 2 h), or max-concurrent 1 with each key's first permit held. ");
		if (instructions != null) {
			md.append("Server instructions per decision: `redis-server` under Valgrind's callgrind (`RedisInstructionCount`), ")
				.append("every command the client sent counted, after as many decisions to warm up. ");
		}
		else {
			md.append("Server instructions were not counted: `valgrind` was not installed. ");
		}
		md.append(settings).append(".\n\n");
		md.append("Each cell: the mean over the rounds (lowest–highest); a ratio is enabled ÷ disabled of the means, ")
			.append("with the lowest–highest of the rounds' pairs. Mean: every measured call; quietest tenth: of the ")
			.append(SEGMENTS).append(" parts the measured calls were read in, the one whose script took least time (a ")
			.append("script's time holds any time the server was not running, on a shared machine).\n\n");
		Map<String, List<Double>> quietest = perCall(times, 8, 7);
		StringBuilder targets = new StringBuilder("| Target | Measured | Status |\n| --- | --- | --- |\n");
		StringBuilder table = new StringBuilder();
		table.append("| Shape (script) | Calls | µs disabled | µs enabled | Enabled ÷ disabled ")
			.append("| Quietest tenth: µs disabled | µs enabled | Enabled ÷ disabled |\n")
			.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
		Worst mean = new Worst();
		Worst quiet = new Worst();
		for (Shape shape : Shape.values()) {
			for (Way way : Way.values()) {
				String id = shape + "," + way;
				if (!micros.containsKey(id + ",disabled") || !micros.containsKey(id + ",enabled")) {
					continue;
				}
				table.append("| ").append(shape.label).append(" (`").append(shape.script).append("`) | ")
					.append(way.label()).append(" | ")
					.append(compare(micros, id, "%.2f", mean, shape.label + ", " + way.label())).append(" | ")
					.append(compare(quietest, id, "%.2f", quiet, shape.label + ", " + way.label())).append(" |\n");
			}
		}
		target(targets, "the decide script's server time, mean µs per call", mean);
		target(targets, "the decide script's server time, µs per call of the quietest tenth", quiet);
		StringBuilder counted = new StringBuilder();
		if (instructions != null) {
			Worst worst = new Worst();
			counted.append("\nServer instructions per decision:\n\n")
				.append("| Shape (script) | Calls | Disabled | Enabled | Enabled ÷ disabled | Added |\n")
				.append("| --- | --- | ---: | ---: | ---: | ---: |\n");
			for (Shape shape : Shape.values()) {
				for (Way way : Way.values()) {
					String id = shape + "," + way;
					if (!counts.containsKey(id + ",disabled") || !counts.containsKey(id + ",enabled")) {
						continue;
					}
					counted.append("| ").append(shape.label).append(" (`").append(shape.script).append("`) | ")
						.append(way.label()).append(" | ")
						.append(compare(counts, id, "%,.0f", worst, shape.label + ", " + way.label())).append(" | ")
						.append(String.format(Locale.ROOT, "%,.0f",
								mean(counts.get(id + ",enabled")) - mean(counts.get(id + ",disabled"))))
						.append(" |\n");
				}
			}
			target(targets, "the server's instructions per decision", worst);
		}
		md.append(targets).append("\nThe decide script's server time per call:\n\n").append(table).append(counted);
		return md.append(END).toString();
	}

	/** The highest ratio met so far, and where. */
	private static final class Worst {

		double ratio;

		String where = "—";

	}

	private static void target(StringBuilder targets, String measure, Worst worst) {
		targets.append("| Pause-on-throttle enabled, no pause in force: ").append(measure).append(" < ")
			.append(String.format(Locale.ROOT, "%.2f", TARGET)).append("× disabled, every shape | highest ")
			.append(String.format(Locale.ROOT, "%.3f×", worst.ratio)).append(" (").append(worst.where).append(") | ")
			.append((worst.ratio < TARGET) ? "**met**" : "**not met**").append(" |\n");
	}

	/**
	 * Three cells: disabled, enabled (each mean and lowest–highest) and the ratio of the means
	 * (with the lowest–highest of the rounds' pairs); the ratio counts towards {@code worst}.
	 */
	private static String compare(Map<String, List<Double>> values, String id, String format, Worst worst,
			String where) {
		List<Double> off = values.get(id + ",disabled");
		List<Double> on = values.get(id + ",enabled");
		double ratio = mean(on) / mean(off);
		if (ratio > worst.ratio) {
			worst.ratio = ratio;
			worst.where = where;
		}
		double[] pairs = pairRange(off, on);
		return spread(off, format) + " | " + spread(on, format) + " | "
				+ String.format(Locale.ROOT, "%.3f× (%.3f–%.3f)", ratio, pairs[0], pairs[1]);
	}

	/**
	 * Per shape, way and pause ({@code "BUCKET,ADMITTED,enabled"}): the value of each round, per
	 * call (the column {@code value} divided by the column {@code calls}, or as it is for {@code -1}).
	 */
	static Map<String, List<Double>> perCall(List<String> lines, int value, int calls) {
		Map<String, List<Double>> values = new HashMap<>();
		for (String line : lines.subList(1, lines.size())) {
			if (line.isBlank()) {
				continue;
			}
			String[] cells = line.split(",");
			double per = Double.parseDouble(cells[value]) / ((calls < 0) ? 1 : Double.parseDouble(cells[calls]));
			values.computeIfAbsent(cells[0] + "," + cells[1] + "," + cells[2], (key) -> new ArrayList<>()).add(per);
		}
		return values;
	}

	/** The lowest and highest enabled ÷ disabled of one round. */
	static double[] pairRange(List<Double> off, List<Double> on) {
		double low = Double.MAX_VALUE;
		double high = 0;
		for (int i = 0; i < Math.min(off.size(), on.size()); i++) {
			double ratio = on.get(i) / off.get(i);
			low = Math.min(low, ratio);
			high = Math.max(high, ratio);
		}
		return new double[] { low, high };
	}

	static double mean(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
	}

	private static String spread(List<Double> values, String format) {
		double low = values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
		double high = values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
		return String.format(Locale.ROOT, format + " (" + format + "–" + format + ")", mean(values), low, high);
	}

}
