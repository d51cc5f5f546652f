package dev.resilience.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the sample's demos over HTTP, on the port the test started it on, and reads the reports
 * they answer.
 */
final class DemoRuns {

	private final HttpClient http = HttpClient.newHttpClient();

	private final int port;

	private final JsonMapper json;

	DemoRuns(int port, JsonMapper json) {
		this.port = port;
		this.json = json;
	}

	/**
	 * Runs a demo and returns its report, failing with the answer's body unless it is a 200.
	 * @param pathAndQuery the demo's path and query, such as {@code /demo/fleet?pause=true}
	 * @return the report
	 * @throws Exception if the request could not be sent or its answer read
	 */
	JsonNode run(String pathAndQuery) throws Exception {
		URI uri = URI.create("http://localhost:" + this.port + pathAndQuery);
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return this.json.readTree(response.body());
	}

}
