package dev.resilience.autoconfigure.web.client;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.ratelimit.RateLimitExceededException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Requests of Boot's auto-configured {@code RestClient.Builder} and {@code RestTemplateBuilder}
 * to a real partner on a loopback port: those to a listed host ({@code localhost}) are decided by
 * the limiter before they are sent, those to another host of the same server ({@code 127.0.0.1})
 * are not; the partner's answers pause the key. The clock is the test's and stands still.
 */
class RestClientRateLimitTests {

	private static final String PARTNER = "resilience.rate-limiters.partner.";

	@AutoClose
	private final PartnerServer partner = new PartnerServer();

	/** Without pausing, whose settings are refused while it is off. */
	private final ApplicationContextRunner unpausedRunner = LimitedClients.restClients()
		.withPropertyValues(PARTNER + "windows[0].limit=2", PARTNER + "windows[0].period=1m",
				PARTNER + "http-client.hosts=localhost");

	private final ApplicationContextRunner contextRunner = this.unpausedRunner.withPropertyValues(
			PARTNER + "pause-on-throttle.enabled=true", PARTNER + "pause-on-throttle.default-pause=4s",
			PARTNER + "pause-on-throttle.max-pause=10s", PARTNER + "pause-on-throttle.resume-jitter=0");

	@Test
	void requestsToAListedHostAreLimitedAndOthersAreNot() {
		this.contextRunner.run((context) -> {
			RestClient limited = restClient(context, "localhost");
			RestClient other = restClient(context, "127.0.0.1");
			assertThat(get(limited)).isEqualTo("ok");
			assertThat(get(limited)).isEqualTo("ok");
			for (int i = 0; i < 3; i++) {
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> get(limited))
					.satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("partner"));
			}
			for (int i = 0; i < 5; i++) {
				assertThat(get(other)).isEqualTo("ok");
			}
			assertThat(this.partner.received("localhost")).isEqualTo(2);
			assertThat(this.partner.received("127.0.0.1")).isEqualTo(5);
		});
	}

	@Test
	void restTemplateRequestsToAListedHostAreLimited() {
		this.contextRunner.run((context) -> {
			RestTemplate limited = context.getBean(RestTemplateBuilder.class).rootUri(this.partner.url("localhost")).build();
			RestTemplate other = context.getBean(RestTemplateBuilder.class).rootUri(this.partner.url("127.0.0.1")).build();
			assertThat(limited.getForObject("/orders", String.class)).isEqualTo("ok");
			assertThat(limited.getForObject("/orders", String.class)).isEqualTo("ok");
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> limited.getForObject("/orders", String.class));
			assertThat(other.getForObject("/orders", String.class)).isEqualTo("ok");
			assertThat(this.partner.received("localhost")).isEqualTo(2);
			assertThat(this.partner.received("127.0.0.1")).isEqualTo(1);
		});
	}

	@Test
	void hostsAreComparedWithoutRegardToCase() {
		this.contextRunner.withPropertyValues(PARTNER + "http-client.hosts=LocalHost").run((context) -> {
			RestClient limited = restClient(context, "LOCALHOST");
			get(limited);
			get(limited);
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> get(limited))
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("localhost"));
		});
	}

	@Test
	void aThrottledAnswerPausesTheKeyForItsRetryAfter() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100").run((context) -> {
			RestClient limited = restClient(context, "localhost");
			this.partner.answerNext(429, Map.of("Retry-After", "7"));
			assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class).isThrownBy(() -> get(limited));
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> get(limited))
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(7)));
			assertThat(this.partner.received("localhost")).isEqualTo(1);
			context.getBean(TestTicker.class).advance(Duration.ofSeconds(7));
			assertThat(get(limited)).isEqualTo("ok");
		});
	}

	@Test
	void restTemplateThrottledAnswersPauseTheKey() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100").run((context) -> {
			RestTemplate limited = context.getBean(RestTemplateBuilder.class).rootUri(this.partner.url("localhost")).build();
			this.partner.answerNext(503, Map.of("Retry-After", "3"));
			assertThatExceptionOfType(org.springframework.web.client.HttpServerErrorException.class)
				.isThrownBy(() -> limited.getForObject("/orders", String.class));
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> limited.getForObject("/orders", String.class))
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(3)));
		});
	}

	@Test
	void aRateLimitItemWithNothingRemainingOnASuccessPausesForItsReset() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100").run((context) -> {
			RestClient limited = restClient(context, "localhost");
			this.partner.answerNext(200, Map.of("RateLimit", "\"p\";r=0;t=2"));
			assertThat(get(limited)).isEqualTo("ok");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> get(limited))
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(2)));
			context.getBean(TestTicker.class).advance(Duration.ofSeconds(2));
			assertThat(get(limited)).isEqualTo("ok");
		});
	}

	@Test
	void aRateLimitItemWithQuotaLeftPausesNothing() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100").run((context) -> {
			RestClient limited = restClient(context, "localhost");
			this.partner.answerNext(200, Map.of("RateLimit", "\"p\";r=5;t=2"));
			get(limited);
			assertThat(get(limited)).isEqualTo("ok");
		});
	}

	@Test
	void malformedFieldsAreIgnored() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100").run((context) -> {
			RestClient limited = restClient(context, "localhost");
			this.partner.answerNext(200, Map.of("RateLimit", "\"p\";r=0;t=soon"));
			get(limited);
			assertThat(get(limited)).as("after a malformed RateLimit on a success").isEqualTo("ok");
			// a throttled answer whose fields do not parse names no wait: the default pause
			this.partner.answerNext(429, Map.of("Retry-After", "tomorrow", "RateLimit", "p;r=zero"));
			assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class).isThrownBy(() -> get(limited));
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> get(limited))
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(4)));
		});
	}

	@Test
	void aResetBeyondMaxPauseIsCutToIt() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100").run((context) -> {
			RestClient limited = restClient(context, "localhost");
			this.partner.answerNext(200, Map.of("RateLimit", "\"p\";r=0;t=3600"));
			get(limited);
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> get(limited))
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(10)));
		});
	}

	@Test
	void answersAreNotReadForSignalsWhenTheLimiterDoesNotPause() {
		this.unpausedRunner.withPropertyValues(PARTNER + "windows[0].limit=100")
			.run((context) -> {
				RestClient limited = restClient(context, "localhost");
				this.partner.answerNext(429, Map.of("Retry-After", "7"));
				assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class).isThrownBy(() -> get(limited));
				assertThat(get(limited)).isEqualTo("ok");
			});
	}

	@Test
	void theConcurrencyPermitIsHeldUntilTheResponseIsClosedAndReturnedOnce() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100", PARTNER + "max-concurrent=1")
			.run((context) -> {
				RestClient limited = restClient(context, "localhost");
				ClientHttpResponse open = limited.get().uri("/orders").exchange((request, response) -> response, false);
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> get(limited));
				assertThat(this.partner.received("localhost")).isEqualTo(1);
				open.close();
				open.close();
				// Had the second close returned the permit again, two responses could be open now.
				ClientHttpResponse next = limited.get().uri("/orders").exchange((request, response) -> response, false);
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> get(limited));
				next.close();
				assertThat(get(limited)).isEqualTo("ok");
			});
	}

	@Test
	void aRequestThatFailsReturnsItsPermit() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100", PARTNER + "max-concurrent=1")
			.run((context) -> {
				RestClient unreachable = context.getBean(RestClient.Builder.class).baseUrl(PartnerServer.closedUrl()).build();
				assertThatExceptionOfType(ResourceAccessException.class).isThrownBy(() -> get(unreachable));
				assertThat(get(restClient(context, "localhost"))).isEqualTo("ok");
			});
	}

	@Test
	void theKeyExpressionChoosesTheBucketFromTheRequest() {
		this.contextRunner
			.withPropertyValues(PARTNER + "windows[0].limit=1", PARTNER + "http-client.key=#request.headers.getFirst('X-Tenant')")
			.run((context) -> {
				RestClient limited = restClient(context, "localhost");
				assertThat(tenant(limited, "a")).isEqualTo("ok");
				assertThat(tenant(limited, "b")).isEqualTo("ok");
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> tenant(limited, "a"))
					.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("a"));
			});
	}

	@Test
	void aKeyThatEvaluatesToNullIsAnErrorNamingThePropertyAndTheRequestIsNotSent() {
		this.contextRunner.withPropertyValues(PARTNER + "http-client.key=#request.headers.getFirst('X-Tenant')")
			.run((context) -> {
				assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> get(restClient(context, "localhost")))
					.withMessage("The key expression '#request.headers.getFirst('X-Tenant')' of "
							+ PARTNER + "http-client.key evaluated to null; a null key would silently share one bucket");
				assertThat(this.partner.received("localhost")).isZero();
			});
	}

	private RestClient restClient(AssertableApplicationContext context, String host) {
		return context.getBean(RestClient.Builder.class).baseUrl(this.partner.url(host)).build();
	}

	private static String get(RestClient client) {
		return client.get().uri("/orders").retrieve().body(String.class);
	}

	private static String tenant(RestClient client, String tenant) {
		return client.get().uri("/orders").header("X-Tenant", tenant).retrieve().body(String.class);
	}

}
