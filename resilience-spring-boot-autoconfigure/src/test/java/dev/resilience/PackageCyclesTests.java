package dev.resilience;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.resilience.ratelimit.RateLimiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Keeps the packages of the starter layered: {@code jdeps} reads the compiled classes, and any
 * two {@code dev.resilience} packages that depend on each other, directly or through others,
 * fail the build with the packages of the cycle named. Rate limiting's caller API also depends on
 * none of its subpackages: a store depends on it, never the reverse.
 */
class PackageCyclesTests {

	private static final Pattern EDGE = Pattern.compile("^\\s+(dev\\.resilience[\\w.]*)\\s+->\\s+(dev\\.resilience[\\w.]*)\\s");

	/** The compiled classes' package dependencies, read by jdeps once for the tests that need them. */
	private static Map<String, Set<String>> compiledDependencies;

	@BeforeAll
	static void readDependencies() throws URISyntaxException {
		compiledDependencies = packageDependencies(compiledClasses());
	}

	@Test
	void noPackageDependsOnItselfThroughOthers() {
		// The reading itself is checked, so a changed jdeps output cannot pass as "no cycles".
		assertThat(compiledDependencies).containsKeys("dev.resilience.ratelimit",
				"dev.resilience.autoconfigure.ratelimit");
		assertThat(compiledDependencies.get("dev.resilience.autoconfigure.ratelimit"))
			.contains("dev.resilience.ratelimit");
		assertThat(cycles(compiledDependencies)).as("package cycles among %s", compiledDependencies.keySet())
			.isEmpty();
	}

	@Test
	void rateLimitingCallerApiDependsOnNoStorePackage() {
		assertThat(compiledDependencies.get("dev.resilience.ratelimit.store")).contains("dev.resilience.ratelimit");
		assertThat(compiledDependencies.get("dev.resilience.ratelimit"))
			.as("what dev.resilience.ratelimit depends on")
			.noneMatch((dependency) -> dependency.startsWith("dev.resilience.ratelimit."));
	}

	@Test
	void findsEveryCycleAndOnlyCycles() {
		Map<String, Set<String>> dependencies = Map.of("a", Set.of("b"), "b", Set.of("c", "b"), "c", Set.of("a"),
				"d", Set.of("a"), "e", Set.of("f"), "f", Set.of("e"), "g", Set.of());
		assertThat(cycles(dependencies)).containsExactlyInAnyOrder(List.of("a", "b", "c"), List.of("e", "f"));
	}

	@Test
	void aPackageThatOnlyUsesItselfIsNoCycle() {
		assertThat(cycles(Map.of("a", Set.of("a"), "b", Set.of("a")))).isEmpty();
	}

	private static Path compiledClasses() throws URISyntaxException {
		return Path.of(RateLimiter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
	}

	private static Map<String, Set<String>> packageDependencies(Path classes) {
		ToolProvider jdeps = ToolProvider.findFirst("jdeps")
			.orElseThrow(() -> new AssertionError("jdeps is not in this Java runtime: run the build on a JDK"));
		StringWriter out = new StringWriter();
		StringWriter err = new StringWriter();
		int exit = jdeps.run(new PrintWriter(out), new PrintWriter(err), "-verbose:package", "-filter:none", "-e",
				"dev\\.resilience\\..*", classes.toString());
		if (exit != 0) {
			fail("jdeps on %s exited with %d: %s", classes, exit, err);
		}
		Map<String, Set<String>> dependencies = new TreeMap<>();
		for (String line : out.toString().split("\\R")) {
			Matcher edge = EDGE.matcher(line);
			if (edge.find()) {
				dependencies.computeIfAbsent(edge.group(1), (name) -> new TreeSet<>()).add(edge.group(2));
			}
		}
		return dependencies;
	}

	/** The strongly connected components of more than one package (Tarjan), each sorted. */
	static List<List<String>> cycles(Map<String, Set<String>> dependencies) {
		return new Components(dependencies).cycles;
	}

	private static final class Components {

		private final Map<String, Set<String>> dependencies;

		private final Map<String, Integer> index = new HashMap<>();

		private final Map<String, Integer> lowLink = new HashMap<>();

		private final Deque<String> stack = new ArrayDeque<>();

		private final Set<String> onStack = new TreeSet<>();

		private final List<List<String>> cycles = new ArrayList<>();

		Components(Map<String, Set<String>> dependencies) {
			this.dependencies = dependencies;
			new TreeSet<>(dependencies.keySet()).forEach((name) -> {
				if (!this.index.containsKey(name)) {
					visit(name);
				}
			});
		}

		private void visit(String name) {
			this.index.put(name, this.index.size());
			this.lowLink.put(name, this.index.get(name));
			this.stack.push(name);
			this.onStack.add(name);
			for (String next : this.dependencies.getOrDefault(name, Set.of())) {
				if (!this.index.containsKey(next)) {
					visit(next);
					this.lowLink.put(name, Math.min(this.lowLink.get(name), this.lowLink.get(next)));
				}
				else if (this.onStack.contains(next)) {
					this.lowLink.put(name, Math.min(this.lowLink.get(name), this.index.get(next)));
				}
			}
			if (this.lowLink.get(name).equals(this.index.get(name))) {
				List<String> component = new ArrayList<>();
				String member;
				do {
					member = this.stack.pop();
					this.onStack.remove(member);
					component.add(member);
				}
				while (!member.equals(name));
				if (component.size() > 1) {
					component.sort(null);
					this.cycles.add(component);
				}
			}
		}

	}

}
