package dev.resilience.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks {@code docs/grafana/resilience-dashboard.json} against a real scrape: the sample serves
 * every demo once, then every metric name any panel's query (or a variable's) uses must be in
 * {@code /actuator/prometheus}, every panel must query something, and each group of meters (rate
 * limiters, retries, polls, pools) has its panels. The pauses counter exists for limiters that
 * pause, so {@code partner-api} pauses here (its partner never throttles it in the demos).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.partner.deadline=500ms", "sample.partner.hang-for=2s",
				"resilience.rate-limiters.partner-api.pause-on-throttle.enabled=true" })
class GrafanaDashboardTests {

	private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "resilience-dashboard.json");

	private static final Pattern METRIC = Pattern.compile("\\bresilience_[a-z_]+");

	/** Every meter of docs/observability.md, as Prometheus names it, by the row whose panels must query it. */
	private static final Map<String, List<String>> GROUPS = Map.of("Rate limiters",
			List.of("resilience_ratelimiter_calls_total", "resilience_ratelimiter_wait_seconds",
					"resilience_ratelimiter_store_errors_total", "resilience_ratelimiter_keys",
					"resilience_ratelimiter_pauses_total", "resilience_ratelimiter_concurrency_limit"),
			"Retries", List.of("resilience_retry_calls_total", "resilience_retry_attempts_total"), "Polls",
			List.of("resilience_poll_calls_total", "resilience_poll_attempts"), "Pools",
			List.of("resilience_pool_checkout_seconds", "resilience_pool_operation_seconds", "resilience_pool_active",
					"resilience_pool_idle", "resilience_pool_pending"));

	private final HttpClient http = HttpClient.newHttpClient();

	private final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Test
	void everyMetricTheDashboardQueriesShouldBeScrapedAfterTheDemos() throws Exception {
		for (String demo : List.of("/demo/burst?calls=40", "/demo/retries?calls=12", "/demo/export",
				"/demo/deadline?calls=2", "/demo/reactive/invoices/8", "/demo/reactive/burst?calls=8&customer=grafana",
				"/demo/async/invoices/12", "/demo/async/invoices/11")) {
			assertThat(get(demo).statusCode()).as(demo).isIn(200, 502);
		}
		HttpResponse<String> scrape = get("/actuator/prometheus");
		assertThat(scrape.statusCode()).isEqualTo(200);
		Set<String> scraped = scrapedNames(scrape.body());

		JsonNode dashboard = this.json.readTree(Files.readString(DASHBOARD));
		Set<String> queried = new LinkedHashSet<>();
		for (JsonNode panel : panels(dashboard)) {
			Set<String> metrics = metrics(panel.get("targets"));
			assertThat(metrics).as("metrics queried by panel '%s'", panel.get("title").asString()).isNotEmpty();
			queried.addAll(metrics);
		}
		for (JsonNode variable : dashboard.get("templating").get("list")) {
			if ("query".equals(variable.get("type").asString())) {
				queried.addAll(names(variable.get("definition").asString()));
			}
		}
		assertThat(scraped).as("metric names in /actuator/prometheus").containsAll(queried);
	}

	@Test
	void eachGroupOfMetersShouldHaveItsPanels() throws Exception {
		JsonNode dashboard = this.json.readTree(Files.readString(DASHBOARD));
		Map<String, Set<String>> byRow = new LinkedHashMap<>();
		String row = null;
		for (JsonNode panel : dashboard.get("panels")) {
			if ("row".equals(panel.get("type").asString())) {
				row = panel.get("title").asString();
				byRow.put(row, new LinkedHashSet<>());
			}
			else {
				assertThat(row).as("panel '%s' below a row", panel.get("title").asString()).isNotNull();
				byRow.get(row).addAll(metrics(panel.get("targets")));
			}
		}
		assertThat(byRow).containsOnlyKeys(GROUPS.keySet());
		GROUPS.forEach((group, meters) -> meters.forEach((meter) -> assertThat(byRow.get(group))
			.as("row '%s' queries %s", group, meter)
			.anyMatch((name) -> name.startsWith(meter))));
		assertThat(dashboard.get("templating").get("list").get(0).get("type").asString()).isEqualTo("datasource");
	}

	private static List<JsonNode> panels(JsonNode dashboard) {
		List<JsonNode> panels = new ArrayList<>();
		dashboard.get("panels").forEach((panel) -> {
			if (!"row".equals(panel.get("type").asString())) {
				panels.add(panel);
			}
		});
		assertThat(panels).isNotEmpty();
		return panels;
	}

	private static Set<String> metrics(JsonNode targets) {
		Set<String> metrics = new LinkedHashSet<>();
		if (targets != null) {
			targets.forEach((target) -> metrics.addAll(names(target.get("expr").asString())));
		}
		return metrics;
	}

	private static Set<String> names(String query) {
		Set<String> names = new LinkedHashSet<>();
		Matcher matcher = METRIC.matcher(query);
		while (matcher.find()) {
			names.add(matcher.group());
		}
		return names;
	}

	private static Set<String> scrapedNames(String scrape) {
		Set<String> names = new LinkedHashSet<>();
		for (String line : scrape.split("\n")) {
			if (!line.startsWith("#") && !line.isBlank()) {
				names.add(line.split("[{ ]", 2)[0]);
			}
		}
		return names;
	}

	private HttpResponse<String> get(String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(60))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
