package dev.resilience.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks every relative link of README.md, CONTRIBUTING.md and the pages under {@code docs/}: its
 * file exists and its {@code #anchor} is a heading of that page, by GitHub's rule for heading
 * anchors. Pages move between {@code docs/} and {@code docs/internals/}, and a link left behind
 * would otherwise only be found by a reader. Links in code blocks and code spans are not links.
 */
class DocumentationLinksTests {

	private static final Path ROOT = Path.of("..");

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

	private final Map<Path, Set<String>> anchors = new HashMap<>();

	@Test
	void everyRelativeLinkReachesAFileAndAHeading() throws IOException {
		List<String> broken = new ArrayList<>();
		for (Path page : pages()) {
			List<String> lines = prose(page);
			for (int i = 0; i < lines.size(); i++) {
				Matcher link = LINK.matcher(lines.get(i).replaceAll("`[^`]*`", ""));
				while (link.find()) {
					String problem = problem(page, link.group(1));
					if (problem != null) {
						broken.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + link.group(1) + ": " + problem);
					}
				}
			}
		}
		assertThat(broken).isEmpty();
	}

	@Test
	void anchorsFollowGitHubsRule() {
		assertThat(slug("Order of the advisors: `resilience.aspect-order.*`"))
			.isEqualTo("order-of-the-advisors-resilienceaspect-order");
		assertThat(slug("Which `@Retryable`?")).isEqualTo("which-retryable");
		assertThat(slug("[Pools](pools.md) and HTTP")).isEqualTo("pools-and-http");
	}

	private static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")));
		try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	private String problem(Path page, String target) {
		if (target.matches("^[a-z]+:.*")) {
			return null;
		}
		int hash = target.indexOf('#');
		String file = (hash < 0) ? target : target.substring(0, hash);
		Path destination = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
		if (!Files.exists(destination)) {
			return "no file " + destination;
		}
		if (hash >= 0 && destination.toString().endsWith(".md")
				&& !this.anchors.computeIfAbsent(destination, DocumentationLinksTests::anchorsOf)
					.contains(target.substring(hash + 1))) {
			return "no heading #" + target.substring(hash + 1) + " in " + destination;
		}
		return null;
	}

	private static Set<String> anchorsOf(Path page) {
		Set<String> anchors = new HashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		for (String line : prose(page)) {
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				String slug = slug(heading.group(1));
				int before = seen.merge(slug, 1, Integer::sum) - 1;
				anchors.add((before == 0) ? slug : slug + "-" + before);
			}
		}
		return anchors;
	}

	/** GitHub's anchor of a heading: link texts kept, lower case, punctuation dropped, spaces to dashes. */
	private static String slug(String heading) {
		return heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
			.toLowerCase(Locale.ROOT)
			.replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
			.replace(' ', '-');
	}

	/** The page's lines, those inside fenced code blocks blanked, so that line numbers stay. */
	private static List<String> prose(Path page) {
		List<String> lines = new ArrayList<>();
		boolean fence = false;
		try {
			for (String line : Files.readAllLines(page)) {
				boolean marker = line.stripLeading().startsWith("```");
				fence ^= marker;
				lines.add((fence || marker) ? "" : line);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return lines;
	}

}
