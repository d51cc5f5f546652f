package dev.resilience.autoconfigure.retry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import dev.resilience.autoconfigure.LocalRestClients;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestSleeper;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.retry.Jitter;
import dev.resilience.retry.RetriesExhaustedException;
import dev.resilience.retry.Retry;
import dev.resilience.retry.RetryPolicy;
import dev.resilience.retry.RetryRegistry;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Retry-After through a real HTTP 429 from a local server, read by {@code RestClient}'s
 * exception, in both the seconds and the HTTP-date forms; and from {@code WebClient}'s exception.
 */
class HttpRetryAfterTests {

	private static final Instant NOW = Instant.parse("2026-11-22T06:00:00Z");

	private final Queue<String> retryAfters = new ConcurrentLinkedQueue<>();

	private final AtomicInteger requests = new AtomicInteger();

	private HttpServer server;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RetryAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class)
		.withBean(Clock.class, () -> Clock.fixed(NOW, ZoneOffset.UTC))
		.withBean(PartnerApi.class, () -> new PartnerApi(partnerClient()));

	/** A client of the local server that reads with a timeout (see {@link LocalRestClients}). */
	private RestClient partnerClient() {
		return LocalRestClients.withTimeouts("http://localhost:" + this.server.getAddress().getPort());
	}

	@BeforeEach
	void startServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
		this.server.createContext("/orders", (exchange) -> {
			this.requests.incrementAndGet();
			String retryAfter = this.retryAfters.poll();
			byte[] body = ((retryAfter != null) ? "slow down" : "order 7").getBytes(StandardCharsets.UTF_8);
			if (retryAfter != null) {
				exchange.getResponseHeaders().add("Retry-After", retryAfter);
			}
			exchange.sendResponseHeaders((retryAfter != null) ? 429 : 200, body.length);
			exchange.getResponseBody().write(body);
			exchange.close();
		});
		this.server.start();
	}

	@AfterEach
	void stopServer() {
		this.server.stop(0);
	}

	@Test
	void retryAfterInSecondsBecomesTheNextDelay() {
		this.retryAfters.add("3");
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(PartnerApi.class).order()).isEqualTo("order 7");
			assertThat(this.requests).hasValue(2);
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(Duration.ofSeconds(3));
		});
	}

	@Test
	void retryAfterAsAnHttpDateIsReadAgainstTheClock() {
		this.retryAfters.add(DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.ofInstant(NOW.plusSeconds(7), ZoneOffset.UTC)));
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(PartnerApi.class).order()).isEqualTo("order 7");
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(Duration.ofSeconds(7));
		});
	}

	@Test
	void retryAfterBeyondMaxDelayStopsAtOnce() {
		this.retryAfters.add("60");
		this.contextRunner.run((context) -> {
			assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class)
				.isThrownBy(() -> context.getBean(PartnerApi.class).order())
				.satisfies((ex) -> assertThat(RetriesExhaustedException.of(ex).getMessage())
					.endsWith("stopped because Retry-After of 1m is beyond maxDelay 10s"));
			assertThat(this.requests).hasValue(1);
			assertThat(context.getBean(TestSleeper.class).getSleeps()).isEmpty();
		});
	}

	@Test
	void webClientResponsesAreReadWhenWebFluxIsPresent() {
		HttpHeaders headers = new HttpHeaders();
		headers.add(HttpHeaders.RETRY_AFTER, "12");
		WebClientResponseException tooMany = WebClientResponseException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests",
				headers, new byte[0], StandardCharsets.UTF_8, null);
		Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
		assertThat(new HttpRetryAfter(clock).of(tooMany)).isEqualTo(Duration.ofSeconds(12));
		assertThat(new HttpRetryAfter(clock, false).of(tooMany)).isNull();
	}

	@Test
	void theApplicationsClassLoaderDecidesWhetherWebClientResponsesAreRead() {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RetryAutoConfiguration.class))
			.withUserConfiguration(TestTimeConfiguration.class);
		runner.run((context) -> assertThat(sleepsAfterWebClient429(context)).containsExactly(Duration.ofSeconds(5)));
		runner.withClassLoader(new FilteredClassLoader("org.springframework.web.reactive"))
			.run((context) -> assertThat(sleepsAfterWebClient429(context)).containsExactly(Duration.ofMillis(100)));
		runner.withClassLoader(new FilteredClassLoader("org.springframework.web"))
			.run((context) -> assertThat(sleepsAfterWebClient429(context)).containsExactly(Duration.ofMillis(100)));
	}

	@Test
	void twoClockBeansLeaveTheSystemClockToReadHttpDates() {
		Instant future = Instant.parse("2100-01-01T00:00:00Z");
		this.retryAfters.add(DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.ofInstant(future.plusSeconds(5), ZoneOffset.UTC)));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
					RetryAutoConfiguration.class))
			.withUserConfiguration(TestTimeConfiguration.class)
			.withBean("firstClock", Clock.class, () -> Clock.fixed(future, ZoneOffset.UTC))
			.withBean("secondClock", Clock.class, () -> Clock.fixed(future.plusSeconds(1), ZoneOffset.UTC))
			.withBean(PartnerApi.class, () -> new PartnerApi(partnerClient()))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// Either clock would wait 4 or 5 seconds; the system clock finds the date decades beyond maxDelay.
				assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class)
					.isThrownBy(() -> context.getBean(PartnerApi.class).order());
				assertThat(context.getBean(TestSleeper.class).getSleeps()).isEmpty();
			});
	}

	private static List<Duration> sleepsAfterWebClient429(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		HttpHeaders headers = new HttpHeaders();
		headers.add(HttpHeaders.RETRY_AFTER, "5");
		WebClientResponseException tooMany = WebClientResponseException.create(HttpStatus.TOO_MANY_REQUESTS,
				"Too Many Requests", headers, new byte[0], StandardCharsets.UTF_8, null);
		Retry retry = context.getBean(RetryRegistry.class)
			.retry("partner", RetryPolicy.builder().maxRetries(1).jitter(Jitter.NONE).build());
		assertThatExceptionOfType(WebClientResponseException.class).isThrownBy(() -> retry.call(() -> {
			throw tooMany;
		}));
		return context.getBean(TestSleeper.class).getSleeps();
	}

	@Test
	void responsesWithoutTheHeaderAskForNothing() {
		Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
		assertThat(new HttpRetryAfter(clock)
			.of(HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "", new HttpHeaders(), new byte[0], null)))
			.isNull();
		assertThat(new HttpRetryAfter(clock).of(new IllegalStateException())).isNull();
	}

	static class PartnerApi {

		private final RestClient client;

		PartnerApi(RestClient client) {
			this.client = client;
		}

		@Retryable(jitter = Jitter.NONE, delay = "1s")
		public String order() {
			return this.client.get().uri("/orders").retrieve().body(String.class);
		}

	}

}
