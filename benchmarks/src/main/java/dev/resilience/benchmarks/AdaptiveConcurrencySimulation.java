package dev.resilience.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import org.jspecify.annotations.Nullable;

import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings.Algorithm;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

/**
 * {@code max-concurrent: adaptive} against a partner whose capacity changes (issue 38's simulator
 * benchmark), in virtual time: a discrete-event simulation drives the real limiter through its
 * public API on a ticker it moves itself, so that a run is exact, repeatable and takes seconds for
 * minutes of simulated traffic.
 * <p>
 * {@link Scenario#callers()} callers call one partner in a loop: each takes a permit
 * ({@code acquire(key, 1, 0)}; a caller turned away waits in line and asks again whenever a permit
 * comes back, as {@code max-wait} callers do), crosses half its round trip, waits in the partner's
 * queue until one of its {@code capacity} places is free, is served in
 * {@link Scenario#service()}, crosses the other half back and closes its permit, which is when the
 * limiter learns the call's latency. The round trip is drawn uniformly between
 * {@link Scenario#minRoundTrip()} and {@link Scenario#maxRoundTrip()} from a seeded generator. The
 * partner's capacity follows {@link Scenario#phases()}. "Inside" the partner is from a request's
 * arrival to its response leaving: its queue and its service.
 * <p>
 * Each {@link Contender} runs the same scenario: the adaptive limit (each algorithm) and fixed
 * limits that are too high and too low. The results are a time series per contender (the limit in
 * force, the mean requests inside, the completed per second), a summary per phase without its first
 * {@link Scenario#settle()}, the ratios of the adaptive limit to each fixed one, and a picture
 * ({@link AdaptiveConcurrencyPlot}).
 * <pre class="code">
 * benchmarks/run-adaptive.sh
 * java -cp ... dev.resilience.benchmarks.AdaptiveConcurrencySimulation out=docs/benchmarks.md \
 *     image=docs/images/adaptive-concurrency.png results=benchmarks/target/results
 * </pre>
 * Options: {@code phases} ({@code 4:30,12:30,2:30}, capacity:seconds), {@code callers} (32),
 * {@code seed} (38), {@code results} (the CSV's folder), {@code image} (the PNG; none without it),
 * {@code out} (the report whose section is written; none without it).
 */
public final class AdaptiveConcurrencySimulation {

	static final String START = "<!-- adaptive concurrency simulation: written by benchmarks/run-adaptive.sh -->";

	static final String END = "<!-- end of adaptive concurrency simulation -->";

	/** Where these figures lie in the report. */
	static final ReportSection SECTION = new ReportSection(START, END);

	/** The name of the contender the others are compared with. */
	static final String ADAPTIVE = "adaptive (gradient)";

	static final String FIXED_HIGH = "fixed 32";

	static final String FIXED_LOW = "fixed 4";

	private static final String KEY = "partner";

	private AdaptiveConcurrencySimulation() {
	}

	public static void main(String[] args) throws IOException {
		Map<String, String> options = new HashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			if (equals < 1) {
				throw new IllegalArgumentException("Expected name=value but got '" + arg + "'");
			}
			options.put(arg.substring(0, equals), arg.substring(equals + 1));
		}
		Scenario scenario = Scenario.standard()
			.withPhases(Phase.parse(options.getOrDefault("phases", "4:30,12:30,2:30")))
			.withCallers(Integer.parseInt(options.getOrDefault("callers", "32")))
			.withSeed(Long.parseLong(options.getOrDefault("seed", "38")));
		long started = System.nanoTime();
		List<Result> results = new ArrayList<>();
		for (Contender contender : Contender.standard()) {
			Result result = simulate(scenario, contender);
			results.add(result);
			System.out.println(contender.name() + ": " + result.calls() + " calls");
		}
		long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
		Path folder = Path.of(options.getOrDefault("results", "benchmarks/target/results"));
		Files.createDirectories(folder);
		Files.writeString(folder.resolve("adaptive-concurrency.csv"), csv(results));
		String image = options.get("image");
		if (image != null) {
			Path png = Path.of(image);
			Files.createDirectories(png.toAbsolutePath().getParent());
			AdaptiveConcurrencyPlot.write(scenario, results, png);
		}
		String section = section(scenario, results, (image != null) ? image : null, millis);
		System.out.println(section);
		String out = options.get("out");
		if (out != null) {
			Path report = Path.of(out);
			String document = Files.exists(report) ? Files.readString(report) : "";
			Files.writeString(report, SECTION.replace(document, section));
			System.out.println("Wrote " + report);
		}
	}

	/**
	 * Runs one contender through the scenario.
	 * @param scenario the partner and its callers
	 * @param contender the limiter's settings
	 * @return its time series and phase summaries
	 */
	static Result simulate(Scenario scenario, Contender contender) {
		return new Simulation(scenario, contender).run();
	}

	/** The time series of every contender, one row per contender and step. */
	static String csv(List<Result> results) {
		StringBuilder csv = new StringBuilder("contender,seconds,capacity,limit,inside,completedPerSecond,busy\n");
		for (Result result : results) {
			for (Point point : result.points()) {
				csv.append(String.format(Locale.ROOT, "%s,%.3f,%d,%d,%.3f,%.1f,%.3f%n", result.contender().name(),
						point.seconds(), point.capacity(), point.limit(), point.inside(), point.throughput(), point.busy()));
			}
		}
		return csv.toString();
	}

	/** The report's section: the scenario, the picture, each contender by phase, the ratios. */
	static String section(Scenario scenario, List<Result> results, @Nullable String image, long millis) {
		StringBuilder out = new StringBuilder(START).append("\n## Adaptive concurrency: a partner whose capacity changes (simulated)\n\n");
		out.append("Generated by `benchmarks/run-adaptive.sh`; do not edit, run it again. A discrete-event simulation in virtual ")
			.append("time drives the real limiter (`max-concurrent: adaptive`, defaults: gradient, initial 10, between 1 and 200) ")
			.append("through its public API on a ticker it moves itself (`AdaptiveConcurrencySimulation`): ")
			.append(scenario.callers())
			.append(" callers call one partner in a loop; the partner serves `capacity` requests at once, ")
			.append(scenario.service().toMillis())
			.append(" ms each, first come first served, the others wait inside it; each call's round trip adds ")
			.append(scenario.minRoundTrip().toMillis())
			.append("–")
			.append(scenario.maxRoundTrip().toMillis())
			.append(" ms (uniform, seed ")
			.append(scenario.seed())
			.append("). Callers beyond the limit wait in line for a returned permit. The capacity goes ");
		for (int i = 0; i < scenario.phases().size(); i++) {
			Phase phase = scenario.phases().get(i);
			out.append((i == 0) ? "" : ", then ").append(phase.capacity()).append(" for ").append(phase.length().toSeconds()).append(" s");
		}
		out.append(". Each phase is summed up without its first ")
			.append(scenario.settle().toSeconds())
			.append(" s. The same build gives the same figures, but for Vegas's, which move a little: Netflix's ")
			.append("`VegasLimit` draws a random jitter. This run simulated ")
			.append(scenario.length().toSeconds() * results.size())
			.append(" s in ")
			.append(String.format(Locale.ROOT, "%.1f", millis / 1000.0))
			.append(" s.\n\n");
		if (image != null) {
			out.append("![The limit, the requests inside the partner and the completed calls per second over time](")
				.append(relativeToDocs(image))
				.append(")\n\n");
		}
		out.append("| Capacity | Limiter | Mean limit | Mean inside the partner | Completed/s | Partner busy | Mean latency (ms) |\n");
		out.append("| --- | --- | --- | --- | --- | --- | --- |\n");
		for (int i = 0; i < scenario.phases().size(); i++) {
			for (Result result : results) {
				PhaseResult phase = result.phases().get(i);
				out.append(String.format(Locale.ROOT, "| %d | %s | %.1f | %.2f | %.1f | %.0f%% | %.1f |%n", phase.capacity(),
						result.contender().name(), phase.meanLimit(), phase.meanInside(), phase.throughput(),
						100 * phase.busy(), phase.meanLatencyMillis()));
			}
		}
		Result adaptive = find(results, ADAPTIVE);
		Result high = find(results, FIXED_HIGH);
		Result low = find(results, FIXED_LOW);
		out.append("\nThe adaptive limit ÷ a fixed one, each phase:\n\n");
		out.append("| Capacity | Inside ÷ ").append(FIXED_HIGH).append(" | Completed/s ÷ ").append(FIXED_HIGH)
			.append(" | Inside ÷ ").append(FIXED_LOW).append(" | Completed/s ÷ ").append(FIXED_LOW).append(" |\n");
		out.append("| --- | --- | --- | --- | --- |\n");
		for (int i = 0; i < scenario.phases().size(); i++) {
			PhaseResult a = adaptive.phases().get(i);
			PhaseResult h = high.phases().get(i);
			PhaseResult l = low.phases().get(i);
			out.append(String.format(Locale.ROOT, "| %d | %.2f | %.2f | %.2f | %.2f |%n", a.capacity(),
					a.meanInside() / h.meanInside(), a.throughput() / h.throughput(), a.meanInside() / l.meanInside(),
					a.throughput() / l.throughput()));
		}
		out.append("\nRegenerate with `benchmarks/run-adaptive.sh` (or, after `./mvnw -B -q -pl benchmarks -am package -DskipTests`: ")
			.append("`java -cp \"benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)\" ")
			.append("dev.resilience.benchmarks.AdaptiveConcurrencySimulation out=docs/benchmarks.md ")
			.append("image=docs/images/adaptive-concurrency.png`); the time series is kept in ")
			.append("`benchmarks/target/results/adaptive-concurrency.csv`.\n");
		return out.append(END).toString();
	}

	private static String relativeToDocs(String image) {
		String path = image.replace('\\', '/');
		return path.startsWith("docs/") ? path.substring("docs/".length()) : path;
	}

	static Result find(List<Result> results, String name) {
		return results.stream()
			.filter((result) -> result.contender().name().equals(name))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("no contender " + name));
	}

	/**
	 * A capacity of the partner and how long it lasts.
	 * @param capacity the requests it serves at once
	 * @param length how long
	 */
	record Phase(int capacity, Duration length) {

		/** Reads {@code 4:30,12:30,2:30}: capacity:seconds, comma-separated. */
		static List<Phase> parse(String phases) {
			List<Phase> parsed = new ArrayList<>();
			for (String phase : phases.split(",")) {
				String[] parts = phase.trim().split(":");
				parsed.add(new Phase(Integer.parseInt(parts[0]), Duration.ofSeconds(Long.parseLong(parts[1]))));
			}
			return List.copyOf(parsed);
		}

	}

	/**
	 * What is simulated.
	 * @param callers the callers, each one call at a time
	 * @param service how long the partner takes to serve a request
	 * @param minRoundTrip the shortest client round trip a call adds
	 * @param maxRoundTrip the longest
	 * @param phases the partner's capacity over time
	 * @param settle how much of each phase its summary leaves out
	 * @param step the time series' resolution
	 * @param seed the round trips' generator's seed
	 */
	record Scenario(int callers, Duration service, Duration minRoundTrip, Duration maxRoundTrip, List<Phase> phases,
			Duration settle, Duration step, long seed) {

		static Scenario standard() {
			return new Scenario(32, Duration.ofMillis(20), Duration.ofMillis(2), Duration.ofMillis(10),
					Phase.parse("4:30,12:30,2:30"), Duration.ofSeconds(5), Duration.ofMillis(200), 38);
		}

		Scenario withPhases(List<Phase> phases) {
			return new Scenario(this.callers, this.service, this.minRoundTrip, this.maxRoundTrip, phases, this.settle,
					this.step, this.seed);
		}

		Scenario withCallers(int callers) {
			return new Scenario(callers, this.service, this.minRoundTrip, this.maxRoundTrip, this.phases, this.settle,
					this.step, this.seed);
		}

		Scenario withSeed(long seed) {
			return new Scenario(this.callers, this.service, this.minRoundTrip, this.maxRoundTrip, this.phases,
					this.settle, this.step, seed);
		}

		Duration length() {
			return this.phases.stream().map(Phase::length).reduce(Duration.ZERO, Duration::plus);
		}

	}

	/**
	 * A limiter under test.
	 * @param name its name in the report
	 * @param settings its settings
	 */
	record Contender(String name, RateLimiterSettings settings) {

		static List<Contender> standard() {
			return List.of(adaptive(ADAPTIVE, Algorithm.GRADIENT), adaptive("adaptive (vegas)", Algorithm.VEGAS),
					adaptive("adaptive (aimd)", Algorithm.AIMD), fixed(FIXED_HIGH, 32), fixed(FIXED_LOW, 4));
		}

		static Contender adaptive(String name, Algorithm algorithm) {
			AdaptiveConcurrencySettings defaults = AdaptiveConcurrencySettings.DEFAULTS;
			return new Contender(name, RateLimiterSettings.builder()
				.adaptiveConcurrency(new AdaptiveConcurrencySettings(algorithm, defaults.initialLimit(),
						defaults.minLimit(), defaults.maxLimit()), Duration.ofMinutes(1))
				.build());
		}

		static Contender fixed(String name, int maxConcurrent) {
			return new Contender(name, RateLimiterSettings.builder().maxConcurrent(maxConcurrent, Duration.ofMinutes(1)).build());
		}

	}

	/**
	 * One step of the time series.
	 * @param seconds the step's end, since the start
	 * @param capacity the partner's capacity at its end
	 * @param limit the limit in force at its end
	 * @param inside the mean requests inside the partner during it
	 * @param throughput the calls the partner completed during it, per second
	 * @param busy the mean share of the partner's capacity in use during it
	 * @param completed the calls the callers completed during it
	 * @param latencyNanos the sum of those calls' latencies, permit to permit
	 */
	record Point(double seconds, int capacity, int limit, double inside, double throughput, double busy, long completed,
			long latencyNanos) {
	}

	/**
	 * One phase without its first {@link Scenario#settle()}.
	 * @param capacity the partner's capacity
	 * @param meanLimit the mean limit in force
	 * @param meanInside the mean requests inside the partner
	 * @param throughput the calls it completed per second
	 * @param busy the mean share of its capacity in use
	 * @param meanLatencyMillis the callers' mean latency, permit to permit
	 */
	record PhaseResult(int capacity, double meanLimit, double meanInside, double throughput, double busy,
			double meanLatencyMillis) {
	}

	/**
	 * A contender's run.
	 * @param contender the contender
	 * @param points the time series
	 * @param phases the summary of each phase
	 * @param calls the calls completed in all
	 */
	record Result(Contender contender, List<Point> points, List<PhaseResult> phases, long calls) {
	}

	/** A caller: one call at a time. */
	private static final class Caller {

		@Nullable Permit permit;

		long admitted;

		/** The half of the round trip still to come when the partner answers. */
		long back;

	}

	/** What happens at a moment of virtual time, in order of time, then of scheduling (steps first). */
	private record Event(long at, long sequence, Kind kind, @Nullable Caller caller, int phase)
			implements Comparable<Event> {

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			if (byTime != 0) {
				return byTime;
			}
			// A step that ends now ends before anything else happens now: a capacity that changes
			// at the end of a step counts from the next one.
			int byStep = Boolean.compare(other.kind == Kind.STEP, this.kind == Kind.STEP);
			return (byStep != 0) ? byStep : Long.compare(this.sequence, other.sequence);
		}

	}

	private enum Kind {

		/** A request reaches the partner. */
		ARRIVE,

		/** The partner answered a request. */
		SERVED,

		/** The answer reached its caller, who closes the permit. */
		RETURNED,

		/** The partner's capacity changes. */
		CAPACITY,

		/** A step of the time series ends. */
		STEP

	}

	/** One contender's run through the scenario. */
	private static final class Simulation {

		private final Scenario scenario;

		private final Contender contender;

		private final RateLimiter limiter;

		private final SplittableRandom random;

		private final PriorityQueue<Event> events = new PriorityQueue<>();

		private final ArrayDeque<Caller> waiting = new ArrayDeque<>();

		/** The requests inside the partner that wait for a place. */
		private final ArrayDeque<Caller> queue = new ArrayDeque<>();

		private final List<Point> points = new ArrayList<>();

		private long now;

		private long sequence;

		private int capacity;

		private int inside;

		private int serving;

		/** Requests inside, and serving, times nanoseconds, since the step began. */
		private double insideArea;

		private double servingArea;

		private long lastChange;

		private long served;

		private long completed;

		private long latencyNanos;

		private long calls;

		Simulation(Scenario scenario, Contender contender) {
			this.scenario = scenario;
			this.contender = contender;
			this.random = new SplittableRandom(scenario.seed());
			this.limiter = StoreRateLimiterRegistry.builder()
				.ticker(() -> this.now)
				.sleeper((nanos) -> {
					throw new IllegalStateException("the simulation never sleeps, but was asked to for " + nanos + " ns");
				})
				.stackTraces(false)
				.limiter(contender.name(), contender.settings())
				.build()
				.get(contender.name());
		}

		Result run() {
			long end = this.scenario.length().toNanos();
			long at = 0;
			for (int i = 0; i < this.scenario.phases().size(); i++) {
				schedule(at, Kind.CAPACITY, null, i);
				at += this.scenario.phases().get(i).length().toNanos();
			}
			schedule(this.scenario.step().toNanos(), Kind.STEP, null, 0);
			for (int i = 0; i < this.scenario.callers(); i++) {
				this.waiting.add(new Caller());
			}
			while (!this.events.isEmpty() && this.events.peek().at() <= end) {
				Event event = this.events.poll();
				advance(event.at());
				switch (event.kind()) {
					case ARRIVE -> arrive(Objects.requireNonNull(event.caller()));
					case SERVED -> served(Objects.requireNonNull(event.caller()));
					case RETURNED -> returned(Objects.requireNonNull(event.caller()));
					case CAPACITY -> {
						this.capacity = this.scenario.phases().get(event.phase()).capacity();
						startQueued();
					}
					case STEP -> step();
				}
				if (event.kind() == Kind.CAPACITY && event.at() == 0) {
					admitWaiting();
				}
			}
			return new Result(this.contender, List.copyOf(this.points), summarize(), this.calls);
		}

		private void schedule(long at, Kind kind, @Nullable Caller caller, int phase) {
			this.events.add(new Event(at, this.sequence++, kind, caller, phase));
		}

		/** Moves the clock, counting the requests inside and serving meanwhile. */
		private void advance(long at) {
			long elapsed = at - this.lastChange;
			this.insideArea += this.inside * (double) elapsed;
			this.servingArea += this.serving * (double) elapsed;
			this.lastChange = at;
			this.now = at;
		}

		/** Admits the callers in line, first come first served, while the limiter lets them. */
		private void admitWaiting() {
			while (!this.waiting.isEmpty()) {
				Permit permit;
				try {
					permit = this.limiter.acquire(KEY, 1, Duration.ZERO);
				}
				catch (RateLimitExceededException ex) {
					return;
				}
				Caller caller = Objects.requireNonNull(this.waiting.poll());
				caller.permit = permit;
				caller.admitted = this.now;
				long min = this.scenario.minRoundTrip().toNanos();
				long roundTrip = min + this.random.nextLong(this.scenario.maxRoundTrip().toNanos() - min + 1);
				caller.back = roundTrip - roundTrip / 2;
				schedule(this.now + roundTrip / 2, Kind.ARRIVE, caller, 0);
			}
		}

		private void arrive(Caller caller) {
			this.inside++;
			this.queue.add(caller);
			startQueued();
		}

		private void startQueued() {
			while (this.serving < this.capacity && !this.queue.isEmpty()) {
				this.serving++;
				schedule(this.now + this.scenario.service().toNanos(), Kind.SERVED, this.queue.poll(), 0);
			}
		}

		private void served(Caller caller) {
			this.serving--;
			this.inside--;
			this.served++;
			schedule(this.now + caller.back, Kind.RETURNED, caller, 0);
			startQueued();
		}

		private void returned(Caller caller) {
			Objects.requireNonNull(caller.permit).close();
			caller.permit = null;
			this.completed++;
			this.calls++;
			this.latencyNanos += this.now - caller.admitted;
			this.waiting.add(caller);
			admitWaiting();
		}

		private void step() {
			double length = this.scenario.step().toNanos();
			this.points.add(new Point(this.now / 1e9, this.capacity, this.limiter.inspect(KEY).getMaxConcurrent(),
					this.insideArea / length, this.served / (length / 1e9), this.servingArea / length / this.capacity,
					this.completed, this.latencyNanos));
			this.insideArea = 0;
			this.servingArea = 0;
			this.served = 0;
			this.completed = 0;
			this.latencyNanos = 0;
			schedule(this.now + this.scenario.step().toNanos(), Kind.STEP, null, 0);
		}

		/** Each phase from the points that end after its settling time and by its end. */
		private List<PhaseResult> summarize() {
			List<PhaseResult> phases = new ArrayList<>();
			double start = 0;
			for (Phase phase : this.scenario.phases()) {
				double end = start + phase.length().toNanos() / 1e9;
				double from = start + this.scenario.settle().toNanos() / 1e9;
				double limit = 0;
				double inside = 0;
				double throughput = 0;
				double busy = 0;
				long completed = 0;
				long latency = 0;
				int count = 0;
				for (Point point : this.points) {
					if (point.seconds() > from + 1e-9 && point.seconds() <= end + 1e-9) {
						limit += point.limit();
						inside += point.inside();
						throughput += point.throughput();
						busy += point.busy();
						completed += point.completed();
						latency += point.latencyNanos();
						count++;
					}
				}
				int n = Math.max(1, count);
				phases.add(new PhaseResult(phase.capacity(), limit / n, inside / n, throughput / n, busy / n,
						(completed > 0) ? latency / 1e6 / completed : 0));
				start = end;
			}
			return List.copyOf(phases);
		}

	}

}
