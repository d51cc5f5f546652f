package dev.resilience.sample;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starts the jar that the {@code aot} profile builds, as a user would ({@code java
 * -Dspring.aot.enabled=true -jar sample-app-0.1.0-SNAPSHOT.jar}), and calls every demo over HTTP:
 * the context Spring's AOT processing generated at build time, not the one reflection would
 * build, serves them all. Run by {@code ./mvnw -B verify -Paot} after the jar is packaged. The
 * poll demo and the burst share the {@code partner-api} limiter: the poll goes first.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SampleAotJarIT {

	/** Set by the {@code aot} profile: the packaged jar. */
	private static final String JAR_PROPERTY = "sample.jar";

	/** A cold JVM on a busy two-core machine. */
	private static final Duration STARTUP = Duration.ofMinutes(3);

	private static Process process;

	private static Path log;

	private static int port;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@BeforeAll
	static void start() throws Exception {
		String jar = System.getProperty(JAR_PROPERTY);
		assertThat(jar).as("system property %s (set by the aot profile of sample-app/pom.xml)", JAR_PROPERTY)
			.isNotBlank();
		assertThat(new File(jar)).as("the packaged jar").isFile();
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		log = Files.createTempFile("sample-aot", ".log");
		String java = ProcessHandle.current().info().command().orElse("java");
		process = new ProcessBuilder(List.of(java, "-Dspring.aot.enabled=true", "-jar", jar, "--server.port=" + port,
				// the deadline demo: a short deadline and hang, as in DeadlineSampleTests
				"--sample.partner.deadline=500ms", "--sample.partner.hang-for=2s"))
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		awaitStarted();
	}

	private static void awaitStarted() throws Exception {
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (!Files.readString(log).contains("Started SampleApplication")) {
			assertThat(process.isAlive()).as("the AOT jar exited:%n%s", Files.readString(log)).isTrue();
			assertThat(System.nanoTime()).as("started within %s:%n%s", STARTUP, Files.readString(log))
				.isLessThan(deadline);
			Thread.sleep(200);
		}
		assertThat(Files.readString(log)).as("Spring Boot's log line of an AOT-processed start")
			.contains("Starting AOT-processed SampleApplication");
	}

	@AfterAll
	static void stop() throws Exception {
		if (process != null) {
			process.destroy();
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
		}
	}

	@Test
	@Order(2)
	void rateLimitDemoShouldPaceTheBurst() throws Exception {
		String report = ok("/demo/burst?calls=40");
		// exact counts are SampleApplicationTests' job; on a loaded machine the burst outlasts the
		// 5 s window. Here: every call decided, and the bucket of 10 did not admit 40 at once.
		int admitted = count(report, "admitted");
		assertThat(admitted + count(report, "waited") + count(report, "rejected")).as(report).isEqualTo(40);
		assertThat(admitted).as(report).isBetween(10, 39);
	}

	private static int count(String report, String field) {
		Matcher matcher = Pattern.compile("\"" + field + "\":(\\d+)").matcher(report);
		assertThat(matcher.find()).as("%s in %s", field, report).isTrue();
		return Integer.parseInt(matcher.group(1));
	}

	@Test
	void retryDemoShouldFetchElevenInvoicesWithRetries() throws Exception {
		assertThat(ok("/demo/retries?calls=12")).contains("\"succeeded\":11", "\"failed\":1");
	}

	@Test
	@Order(1)
	void pollDemoShouldWaitForTheExport() throws Exception {
		assertThat(ok("/demo/export")).contains("\"status\":\"DONE\"");
	}

	@Test
	void deadlineDemoShouldTimeOutTheHungCallAndKeepServing() throws Exception {
		assertThat(ok("/demo/deadline?calls=2")).contains("OperationTimeoutException", "echo: prompt 2");
	}

	@Test
	void reactiveDemosShouldRetryAndLimitPerCustomer() throws Exception {
		assertThat(ok("/demo/reactive/invoices/8")).contains("\"id\":8");
		assertThat(ok("/demo/reactive/burst?calls=8&customer=aot")).contains("\"fetched\":5", "\"rejected\":3");
	}

	@Test
	void completableFutureDemosShouldRetryAndReportTheHistory() throws Exception {
		assertThat(ok("/demo/async/invoices/12")).contains("\"id\":12");
		HttpResponse<String> failed = get("/demo/async/invoices/11");
		assertThat(failed.statusCode()).isEqualTo(502);
		assertThat(failed.body()).contains("Tried 4 times");
	}

	@Test
	void actuatorShouldDescribeEveryCapability() throws Exception {
		assertThat(ok("/actuator/resilience")).contains("\"partner-api\"", "\"partner-invoices\"", "\"partner-export\"",
				"\"partner-workers\"");
		assertThat(ok("/actuator/health")).contains("\"resilience\"");
		assertThat(ok("/actuator/prometheus")).contains("resilience_ratelimiter_calls_total");
	}

	private String ok(String path) throws Exception {
		HttpResponse<String> response = get(path);
		assertThat(response.statusCode()).as("%s answered %s", path, response.body()).isEqualTo(200);
		return response.body();
	}

	private HttpResponse<String> get(String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(60))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
