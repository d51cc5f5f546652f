package dev.resilience.autoconfigure;

import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests the metadata IDEs read to complete and describe what follows a name in the map-valued
 * groups ({@code resilience.rate-limiters.<name>.*} and the like). The map's entry in
 * {@code spring-configuration-metadata.json} names its value type; the configuration processor
 * writes that type's own properties, with descriptions and defaults, to
 * {@code META-INF/spring/configuration-metadata/<type>.json} because the type is a
 * {@code @ConfigurationPropertiesSource}.
 */
class NestedConfigurationMetadataTests {

	private static final String PACKAGE = "dev.resilience.autoconfigure.";

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			resilience.rate-limiters | ratelimit.RateLimiterProperties   | store, token-bucket.capacity, token-bucket.refill-tokens, token-bucket.refill-period, token-bucket.refill-strategy, windows, window-algorithm, max-concurrent, adaptive-concurrency.algorithm, adaptive-concurrency.initial-limit, adaptive-concurrency.min-limit, adaptive-concurrency.max-limit, lease-timeout, max-wait, max-keys, on-store-failure, pause-on-throttle.enabled, pause-on-throttle.statuses, pause-on-throttle.default-pause, pause-on-throttle.max-pause, pause-on-throttle.resume-jitter, http-client.hosts, http-client.key
			resilience.retries       | retry.RetryProperties             | max-retries, delay, backoff, multiplier, max-delay, jitter, max-duration, retry-on, no-retry-on, budget.ratio, budget.min-retries-per-second, budget.window
			resilience.polls         | poll.PollProperties               | max-attempts, delay, backoff, multiplier, max-delay, timeout, ignore-exceptions
			resilience.pools         | pool.ConnectionPoolProperties     | factory, max-size, min-idle, timeout, validate-on-checkout, max-idle-time
			""")
	void everyPropertyBelowANameShouldBeDescribed(String map, String valueType, String names) throws Exception {
		assertThat(mapValueType(map)).isEqualTo(PACKAGE + valueType);
		List<Map<String, Object>> properties = sourceProperties(PACKAGE + valueType);
		assertThat(properties).extracting((property) -> property.get("name"))
			.containsExactlyInAnyOrder((Object[]) names.split(",\\s*"));
		assertDescribed(properties);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			resilience.rate-limiters | ratelimit.RateLimiterProperties$Window | limit, period
			""")
	void everyPropertyOfAListElementShouldBeDescribed(String map, String elementType, String names) throws Exception {
		List<Map<String, Object>> properties = sourceProperties(PACKAGE + elementType);
		assertThat(properties).extracting((property) -> property.get("name"))
			.containsExactlyInAnyOrder((Object[]) names.split(",\\s*"));
		assertDescribed(properties);
	}

	@Test
	void maxConcurrentShouldHintAdaptive() throws Exception {
		String location = "META-INF/spring/configuration-metadata/" + PACKAGE + "ratelimit.RateLimiterProperties.json";
		try (InputStream json = NestedConfigurationMetadataTests.class.getClassLoader().getResource(location).openStream()) {
			List<String> values = JsonPath.read(json, "$.hints[?(@.name == 'max-concurrent')].values[*].value");
			assertThat(values).contains("adaptive");
		}
	}

	private static void assertDescribed(List<Map<String, Object>> properties) {
		assertThat(properties).allSatisfy((property) -> assertThat(property.get("description"))
			.as("description of %s", property.get("name"))
			.isInstanceOf(String.class)
			.asString()
			.isNotBlank()
			.doesNotContain("{@"));
	}

	private static String mapValueType(String name) throws Exception {
		List<String> types = new ArrayList<>();
		for (URL resource : Collections.list(NestedConfigurationMetadataTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream json = resource.openStream()) {
				types.addAll(JsonPath.read(json, "$.properties[?(@.name == '" + name + "')].type"));
			}
		}
		assertThat(types).as("entries named %s", name).hasSize(1);
		String type = types.get(0);
		assertThat(type).startsWith("java.util.Map<java.lang.String,");
		return type.substring("java.util.Map<java.lang.String,".length(), type.length() - 1);
	}

	private static List<Map<String, Object>> sourceProperties(String type) throws Exception {
		String location = "META-INF/spring/configuration-metadata/" + type + ".json";
		URL resource = NestedConfigurationMetadataTests.class.getClassLoader().getResource(location);
		assertThat(resource).as(location).isNotNull();
		try (InputStream json = resource.openStream()) {
			return JsonPath.read(json, "$.properties");
		}
	}

}
