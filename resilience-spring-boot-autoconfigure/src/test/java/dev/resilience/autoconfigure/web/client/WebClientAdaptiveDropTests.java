package dev.resilience.autoconfigure.web.client;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.test.StepVerifier;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests of Boot's {@code WebClient.Builder} to a listed host under a limiter with
 * {@code max-concurrent: adaptive} (SPEC §11), subscribed on Reactor parallel threads with
 * BlockHound installed: an answer whose status is in the limiter's
 * {@code pause-on-throttle.statuses} (pausing off), or a response timeout, records a drop that
 * lowers the host's limit before the permit goes back; other answers do not. Each test first
 * runs the host's probe, and every request takes {@link #CALL} on the test clock, the probe's
 * latency, so latency alone never cuts the limit.
 */
class WebClientAdaptiveDropTests {

	private static final String PARTNER = "resilience.rate-limiters.partner.";

	/** How long each request takes on the test clock, from the key's probe on. */
	private static final Duration CALL = Duration.ofMillis(10);

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@AutoClose
	private final PartnerServer partner = new PartnerServer();

	private final ApplicationContextRunner contextRunner = LimitedClients.webClients()
		.withPropertyValues(PARTNER + "max-concurrent=adaptive", PARTNER + "adaptive-concurrency.initial-limit=10",
				PARTNER + "http-client.hosts=localhost");

	/** Where the requests are subscribed: threads that must not block. */
	private static Scheduler subscribing;

	@BeforeAll
	static void startThreads() {
		subscribing = LimitedClients.nonBlockingThreads("web-client-drops");
	}

	@AfterAll
	static void disposeScheduler() {
		subscribing.dispose();
	}

	@Test
	void aThrottledAnswerLowersTheLimitThoughPausingIsOff() {
		this.contextRunner.run((context) -> {
			WebClient limited = webClient(context, this.partner.url("localhost"));
			probe(context, limited);
			this.partner.answerNext(429, Map.of());
			StepVerifier.create(get(limited)).expectError(WebClientResponseException.TooManyRequests.class).verify(TIMEOUT);
			RateLimitDecision state = state(context);
			assertThat(state.getMaxConcurrent()).isEqualTo(9);
			assertThat(state.getInFlight()).isZero();
			assertThat(state.isPaused()).isFalse();
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
		});
	}

	@Test
	void aResponseTimeoutLowersTheLimit() {
		this.contextRunner.withPropertyValues("spring.http.clients.read-timeout=300ms").run((context) -> {
			WebClient limited = webClient(context, this.partner.url("localhost"));
			probe(context, limited);
			this.partner.hold();
			StepVerifier.create(get(limited)).expectError(WebClientRequestException.class).verify(TIMEOUT);
			this.partner.release();
			assertThat(state(context).getMaxConcurrent()).isEqualTo(9);
			assertThat(state(context).getInFlight()).isZero();
		});
	}

	@Test
	void otherAnswersAndARefusedConnectionLeaveTheLimit() {
		this.contextRunner.withPropertyValues(PARTNER + "pause-on-throttle.statuses=503").run((context) -> {
			WebClient limited = webClient(context, this.partner.url("localhost"));
			probe(context, limited);
			this.partner.answerNext(500, Map.of());
			this.partner.answerNext(429, Map.of());
			StepVerifier.create(get(limited)).expectError(WebClientResponseException.class).verify(TIMEOUT);
			StepVerifier.create(get(limited)).expectError(WebClientResponseException.class).verify(TIMEOUT);
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
			StepVerifier.create(get(webClient(context, PartnerServer.closedUrl()))).expectError(WebClientRequestException.class).verify(TIMEOUT);
			assertThat(state(context).getMaxConcurrent()).isEqualTo(10);
			assertThat(state(context).getInFlight()).isZero();
		});
	}

	/**
	 * Makes every request take {@link #CALL} on the test clock, and runs the key's probe with such
	 * requests: its limit is then {@code initial-limit}, which a drop cuts to nine tenths.
	 */
	private void probe(AssertableApplicationContext context, WebClient limited) {
		TestTicker ticker = context.getBean(TestTicker.class);
		this.partner.onEachRequest(() -> ticker.advance(CALL));
		for (int i = 0; i < AdaptiveProbe.CALLS; i++) {
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
			// the probe's limit is one call: the next waits until this one's permit is back, which
			// the exchange filter returns as the response ends, possibly after the body was delivered
			long deadline = System.nanoTime() + TIMEOUT.toNanos();
			while (state(context).getInFlight() > 0) {
				assertThat(System.nanoTime()).as("the permit of probe call %d returned", i).isLessThan(deadline);
				Thread.onSpinWait();
			}
		}
		assertThat(state(context).getMaxConcurrent()).isEqualTo(10);
	}

	private static RateLimitDecision state(AssertableApplicationContext context) {
		return context.getBean(RateLimiterRegistry.class).get("partner").inspect("localhost");
	}

	private static WebClient webClient(AssertableApplicationContext context, String url) {
		return context.getBean(WebClient.Builder.class).baseUrl(url).build();
	}

	private static Mono<String> get(WebClient client) {
		return client.get().uri("/orders").retrieve().bodyToMono(String.class).subscribeOn(subscribing);
	}

}
