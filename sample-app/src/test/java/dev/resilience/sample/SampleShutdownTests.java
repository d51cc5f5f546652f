package dev.resilience.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample stops gracefully in a few seconds while its fake partner hangs on a request (60 s by
 * default): a real context, a real server, a real close, timed.
 */
class SampleShutdownTests {

	@Test
	void theSampleStopsWithinFiveSecondsWhileThePartnerHangs() throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.run("--server.port=0");
		HttpClient http = HttpClient.newHttpClient();
		try {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			HttpRequest request = HttpRequest
				.newBuilder(URI.create("http://localhost:" + port + "/partner/completions?prompt=p&hang=true"))
				.build();
			Set<Thread> hangingBefore = partnerThreadsHanging();
			CompletableFuture<HttpResponse<String>> hung = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
			await().atMost(Duration.ofSeconds(30))
				.until(() -> !hangingBefore.containsAll(partnerThreadsHanging()));

			long start = System.nanoTime();
			context.close();
			Duration stopping = Duration.ofNanos(System.nanoTime() - start);

			// Unfixed, the graceful shutdown waits its whole 30 s phase for the hung request.
			assertThat(stopping).isLessThan(Duration.ofSeconds(5));
			// The partner gives up on the hung request as a provider going away does.
			assertThat(hung).succeedsWithin(Duration.ofSeconds(5))
				.satisfies((response) -> assertThat(response.statusCode()).isEqualTo(503));
		}
		finally {
			context.close();
		}
	}

	/**
	 * The request threads hanging in the partner. Another test's context in the same JVM may
	 * have one hanging for a while yet; Tomcat names the threads of every server alike.
	 */
	private static Set<Thread> partnerThreadsHanging() {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((thread) -> Arrays.stream(thread.getValue())
				.anyMatch((frame) -> frame.getClassName().endsWith("PartnerCompletionsController")
						&& frame.getMethodName().equals("complete")))
			.map(Map.Entry::getKey)
			.collect(Collectors.toSet());
	}

}
