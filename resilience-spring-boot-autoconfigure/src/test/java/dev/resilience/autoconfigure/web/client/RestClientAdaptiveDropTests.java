package dev.resilience.autoconfigure.web.client;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Requests of Boot's {@code RestClient.Builder} and {@code RestTemplateBuilder} to a listed host
 * under a limiter with {@code max-concurrent: adaptive} (SPEC §11): an answer whose status is in
 * the limiter's {@code pause-on-throttle.statuses} (pausing off), or a read timeout, records a drop
 * that lowers the host's limit before the permit goes back; other answers do not. Each test first
 * runs the host's probe, and every request takes {@link #CALL} on the test clock, the probe's
 * latency, so latency alone never cuts the limit.
 */
class RestClientAdaptiveDropTests {

	private static final String PARTNER = "resilience.rate-limiters.partner.";

	/** How long each request takes on the test clock, from the key's probe on. */
	private static final Duration CALL = Duration.ofMillis(10);

	@AutoClose
	private final PartnerServer partner = new PartnerServer();

	private final ApplicationContextRunner contextRunner = LimitedClients.restClients()
		.withPropertyValues(PARTNER + "max-concurrent=adaptive", PARTNER + "adaptive-concurrency.initial-limit=10",
				PARTNER + "http-client.hosts=localhost");

	@Test
	void aThrottledAnswerLowersTheLimitThoughPausingIsOff() {
		this.contextRunner.run((context) -> {
			RestClient limited = restClient(context);
			probe(context, () -> get(limited));
			this.partner.answerNext(429, Map.of());
			assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class).isThrownBy(() -> get(limited));
			RateLimitDecision state = state(context);
			assertThat(state.getMaxConcurrent()).isEqualTo(9);
			assertThat(state.getInFlight()).isZero();
			assertThat(state.isPaused()).isFalse();
			assertThat(get(limited)).isEqualTo("ok");
		});
	}

	@Test
	void aRestTemplateThrottledAnswerLowersTheLimit() {
		this.contextRunner.run((context) -> {
			RestTemplate limited = context.getBean(RestTemplateBuilder.class).rootUri(this.partner.url("localhost")).build();
			probe(context, () -> limited.getForObject("/orders", String.class));
			this.partner.answerNext(503, Map.of());
			assertThatExceptionOfType(HttpServerErrorException.class)
				.isThrownBy(() -> limited.getForObject("/orders", String.class));
			assertThat(state(context).getMaxConcurrent()).isEqualTo(9);
			assertThat(state(context).getInFlight()).isZero();
		});
	}

	@Test
	void aReadTimeoutLowersTheLimit() {
		this.contextRunner.withPropertyValues("spring.http.clients.read-timeout=300ms").run((context) -> {
			RestClient limited = restClient(context);
			probe(context, () -> get(limited));
			this.partner.hold();
			assertThatExceptionOfType(ResourceAccessException.class).isThrownBy(() -> get(limited));
			this.partner.release();
			assertThat(state(context).getMaxConcurrent()).isEqualTo(9);
			assertThat(state(context).getInFlight()).isZero();
		});
	}

	@Test
	void otherAnswersAndARefusedConnectionLeaveTheLimit() {
		this.contextRunner.withPropertyValues(PARTNER + "pause-on-throttle.statuses=503").run((context) -> {
			RestClient limited = restClient(context);
			probe(context, () -> get(limited));
			this.partner.answerNext(500, Map.of());
			this.partner.answerNext(429, Map.of());
			assertThatExceptionOfType(HttpServerErrorException.class).isThrownBy(() -> get(limited));
			assertThatExceptionOfType(HttpClientErrorException.class).isThrownBy(() -> get(limited));
			assertThat(get(limited)).isEqualTo("ok");
			RestClient unreachable = context.getBean(RestClient.Builder.class).baseUrl(PartnerServer.closedUrl()).build();
			assertThatExceptionOfType(ResourceAccessException.class).isThrownBy(() -> get(unreachable));
			assertThat(state(context).getMaxConcurrent()).isEqualTo(10);
			assertThat(state(context).getInFlight()).isZero();
		});
	}

	/**
	 * Makes every request take {@link #CALL} on the test clock, and runs the key's probe with such
	 * requests: its limit is then {@code initial-limit}, which a drop cuts to nine tenths.
	 */
	private void probe(AssertableApplicationContext context, Runnable request) {
		TestTicker ticker = context.getBean(TestTicker.class);
		this.partner.onEachRequest(() -> ticker.advance(CALL));
		for (int i = 0; i < AdaptiveProbe.CALLS; i++) {
			request.run();
		}
		assertThat(state(context).getMaxConcurrent()).isEqualTo(10);
	}

	private static RateLimitDecision state(AssertableApplicationContext context) {
		return context.getBean(RateLimiterRegistry.class).get("partner").inspect("localhost");
	}

	private RestClient restClient(AssertableApplicationContext context) {
		return context.getBean(RestClient.Builder.class).baseUrl(this.partner.url("localhost")).build();
	}

	private static String get(RestClient client) {
		return client.get().uri("/orders").retrieve().body(String.class);
	}

}
