package dev.resilience.autoconfigure.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The write operation's body filter finds the endpoint wherever Spring MVC serves it: with the
 * DispatcherServlet under a path of its own ({@code spring.mvc.servlet.path}) and with a base
 * path written with a trailing slash, which Actuator ignores. The filter looked only under the
 * context path and the base path as written, so the body's {@code properties} object did not
 * reach the operation there.
 */
@SpringBootTest(classes = ResilienceEndpointWriteServletPathTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.mvc.servlet.path=/api", "management.endpoints.web.base-path=/manage/",
				"management.endpoints.web.exposure.include=resilience",
				"management.endpoint.resilience.access=unrestricted",
				"resilience.rate-limiters.raised.windows[0].limit=3",
				"resilience.rate-limiters.raised.windows[0].period=1h" })
class ResilienceEndpointWriteServletPathTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private RateLimiterRegistry registry;

	@Test
	void postUnderTheServletPathShouldChangeTheSettings() throws Exception {
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/api/manage/resilience/raised"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"properties\": {\"windows[0].limit\": \"5\"}}"))
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		assertThat((Integer) JsonPath.read(response.body(), "$.settings.windows[0].limit")).isEqualTo(5);
		assertThat(this.registry.get("raised").getSettings().windows().get(0).limit()).isEqualTo(5);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(TestTimeConfiguration.class)
	static class TestApplication {

	}

}
