package dev.resilience.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import org.apache.tomcat.util.threads.ThreadPoolExecutor;

import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.resilience.internal.ScheduledAttempts;

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
			ThreadPoolExecutor requestThreads = requestThreadsOf(context);
			CompletableFuture<HttpResponse<String>> hung = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
			// This server's own request threads: another test's cached context in the same JVM
			// may have a request of its own hanging in its partner for a while yet.
			await().atMost(Duration.ofSeconds(30)).until(() -> requestThreads.getActiveCount() == 1);

			long start = System.nanoTime();
			context.close();
			Duration stopping = Duration.ofNanos(System.nanoTime() - start);

			// Unfixed, the graceful shutdown waits its whole 30 s phase for the hung request.
			assertThat(stopping).isLessThan(Duration.ofSeconds(5));
			// The partner gives up on the hung request as a provider going away does: a 503, or,
			// when the stopping server closes the connection before the 503 leaves its buffer (seen
			// on a loaded machine: the client's retry of the GET was refused), a failed request.
			// Either way the request ends with the server, never hanging on.
			CompletableFuture<String> outcome = hung.handle((response, failure) -> (response != null)
					? "status " + response.statusCode() : (ScheduledAttempts.unwrap(failure) instanceof IOException) ? "connection closed"
							: "failed: " + failure);
			assertThat(outcome).succeedsWithin(Duration.ofSeconds(5)).isIn("status 503", "connection closed");
		}
		finally {
			context.close();
		}
	}

	private static ThreadPoolExecutor requestThreadsOf(ConfigurableApplicationContext context) {
		TomcatWebServer server = (TomcatWebServer) ((WebServerApplicationContext) context).getWebServer();
		Executor executor = server.getTomcat().getConnector().getProtocolHandler().getExecutor();
		assertThat(executor).as("Tomcat's request threads").isInstanceOf(ThreadPoolExecutor.class);
		return (ThreadPoolExecutor) executor;
	}

}
