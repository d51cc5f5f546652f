package dev.resilience.autoconfigure.web.client;

import java.time.Duration;
import java.util.Map;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.test.StepVerifier;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests of Boot's auto-configured {@code WebClient.Builder} to a real partner on a loopback
 * port, subscribed on Reactor parallel threads with BlockHound installed (so a decision, a wait
 * or a pause that blocked a thread would fail the request): those to a listed host
 * ({@code localhost}) are decided per subscription, those to another host of the same server
 * ({@code 127.0.0.1}) are not; the concurrency permit is held until the response ends, whichever
 * way, and returned once; the partner's answers pause the key.
 */
class WebClientRateLimitTests {

	private static final String PARTNER = "resilience.rate-limiters.partner.";

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@AutoClose
	private final PartnerServer partner = new PartnerServer();

	private final ApplicationContextRunner contextRunner = LimitedClients.webClients()
		.withPropertyValues(PARTNER + "windows[0].limit=2", PARTNER + "windows[0].period=1m",
				PARTNER + "http-client.hosts=localhost", PARTNER + "pause-on-throttle.enabled=true",
				PARTNER + "pause-on-throttle.max-pause=10s", PARTNER + "pause-on-throttle.resume-jitter=0");

	/** Where the requests are subscribed: threads that must not block. */
	private static Scheduler subscribing;

	@BeforeAll
	static void startThreads() {
		subscribing = LimitedClients.nonBlockingThreads("web-client-tests");
	}

	@AfterAll
	static void disposeScheduler() {
		subscribing.dispose();
	}

	@Test
	void requestsToAListedHostAreLimitedAndOthersAreNot() {
		this.contextRunner.run((context) -> {
			WebClient limited = webClient(context, "localhost");
			WebClient other = webClient(context, "127.0.0.1");
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
			for (int i = 0; i < 3; i++) {
				StepVerifier.create(get(limited)).expectError(RateLimitExceededException.class).verify(TIMEOUT);
			}
			for (int i = 0; i < 5; i++) {
				StepVerifier.create(get(other)).expectNext("ok").expectComplete().verify(TIMEOUT);
			}
			assertThat(this.partner.received("localhost")).isEqualTo(2);
			assertThat(this.partner.received("127.0.0.1")).isEqualTo(5);
		});
	}

	@Test
	void nothingIsDecidedAtAssemblyAndEachSubscriptionIsDecided() {
		this.contextRunner.run((context) -> {
			Mono<String> call = get(webClient(context, "localhost"));
			get(webClient(context, "localhost"));
			assertThat(context.getBean(RateLimiterRegistry.class).get("partner").inspect("localhost").getRemaining())
				.isEqualTo(2);
			StepVerifier.create(call).expectNext("ok").expectComplete().verify(TIMEOUT);
			StepVerifier.create(call).expectNext("ok").expectComplete().verify(TIMEOUT);
			StepVerifier.create(call).expectError(RateLimitExceededException.class).verify(TIMEOUT);
			assertThat(this.partner.received("localhost")).isEqualTo(2);
		});
	}

	@Test
	void aThrottledAnswerPausesTheKeyForItsRetryAfter() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100").run((context) -> {
			WebClient limited = webClient(context, "localhost");
			this.partner.answerNext(429, Map.of("Retry-After", "7"));
			StepVerifier.create(get(limited))
				.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(WebClientResponseException.class)
					.extracting((failure) -> ((WebClientResponseException) failure).getStatusCode())
					.isEqualTo(HttpStatus.TOO_MANY_REQUESTS))
				.verify(TIMEOUT);
			StepVerifier.create(get(limited))
				.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOfSatisfying(RateLimitExceededException.class,
						(rejection) -> assertThat(rejection.getRetryAfter()).isEqualTo(Duration.ofSeconds(7))))
				.verify(TIMEOUT);
			assertThat(this.partner.received("localhost")).isEqualTo(1);
			context.getBean(TestTicker.class).advance(Duration.ofSeconds(7));
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
		});
	}

	@Test
	void aRateLimitItemWithNothingRemainingOnASuccessPausesForItsReset() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100").run((context) -> {
			WebClient limited = webClient(context, "localhost");
			this.partner.answerNext(200, Map.of("RateLimit", "\"p\";r=0;t=2"));
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
			StepVerifier.create(get(limited))
				.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOfSatisfying(RateLimitExceededException.class,
						(rejection) -> assertThat(rejection.getRetryAfter()).isEqualTo(Duration.ofSeconds(2))))
				.verify(TIMEOUT);
			// malformed: ignored
			context.getBean(TestTicker.class).advance(Duration.ofSeconds(2));
			this.partner.answerNext(200, Map.of("RateLimit", "\"p\";r=0;t=later"));
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
		});
	}

	@Test
	void aResetBeyondMaxPauseIsCutToIt() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100").run((context) -> {
			WebClient limited = webClient(context, "localhost");
			this.partner.answerNext(200, Map.of("RateLimit", "\"p\";r=0;t=3600"));
			StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
			StepVerifier.create(get(limited))
				.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOfSatisfying(RateLimitExceededException.class,
						(rejection) -> assertThat(rejection.getRetryAfter()).isEqualTo(Duration.ofSeconds(10))))
				.verify(TIMEOUT);
		});
	}

	@Test
	void aRequestThatFailsReturnsItsPermit() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100", PARTNER + "max-concurrent=1")
			.run((context) -> {
				WebClient unreachable = context.getBean(WebClient.Builder.class).baseUrl(PartnerServer.closedUrl()).build();
				StepVerifier.create(get(unreachable)).expectError(WebClientRequestException.class).verify(TIMEOUT);
				StepVerifier.create(get(webClient(context, "localhost"))).expectNext("ok").expectComplete().verify(TIMEOUT);
			});
	}

	@Test
	void aRequestCancelledInFlightReturnsItsPermitOnce() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100", PARTNER + "max-concurrent=1")
			.run((context) -> {
				WebClient limited = webClient(context, "localhost");
				this.partner.hold();
				Disposable first = get(limited).subscribe();
				Awaitility.await().atMost(TIMEOUT).until(() -> this.partner.waiting() == 1);
				StepVerifier.create(get(limited)).expectError(RateLimitExceededException.class).verify(TIMEOUT);
				first.dispose();
				Mono<String> second = get(limited).cache();
				second.subscribe();
				Awaitility.await().atMost(TIMEOUT).until(() -> this.partner.received("localhost") == 2);
				// Had the cancellation returned the permit twice, this one would be admitted too.
				StepVerifier.create(get(limited)).expectError(RateLimitExceededException.class).verify(TIMEOUT);
				this.partner.release();
				StepVerifier.create(second).expectNext("ok").expectComplete().verify(TIMEOUT);
				StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
				assertThat(this.partner.received("localhost")).isEqualTo(3);
			});
	}

	@Test
	void aResponseWhoseBodyIsNotReadReturnsItsPermitWhenTheClientReleasesIt() {
		this.contextRunner.withPropertyValues(PARTNER + "windows[0].limit=100", PARTNER + "max-concurrent=1")
			.run((context) -> {
				WebClient limited = webClient(context, "localhost");
				Mono<Integer> status = limited.get()
					.uri("/orders")
					.exchangeToMono((response) -> Mono.just(response.statusCode().value()))
					.subscribeOn(subscribing);
				StepVerifier.create(status).expectNext(200).expectComplete().verify(TIMEOUT);
				StepVerifier.create(get(limited)).expectNext("ok").expectComplete().verify(TIMEOUT);
			});
	}

	@Test
	void aRequestWaitingForAPermitWaitsWithoutBlockingAThread() {
		this.contextRunner
			.withPropertyValues(PARTNER + "windows[0].limit=100", PARTNER + "max-concurrent=1", PARTNER + "max-wait=5s")
			.run((context) -> {
				WebClient limited = webClient(context, "localhost");
				this.partner.hold();
				Mono<String> first = get(limited).cache();
				first.subscribe();
				Awaitility.await().atMost(TIMEOUT).until(() -> this.partner.waiting() == 1);
				Mono<String> second = get(limited).cache();
				second.subscribe();
				assertThat(this.partner.received("localhost")).isEqualTo(1);
				this.partner.release();
				StepVerifier.create(first).expectNext("ok").expectComplete().verify(TIMEOUT);
				StepVerifier.create(second).expectNext("ok").expectComplete().verify(TIMEOUT);
				assertThat(this.partner.received("localhost")).isEqualTo(2);
			});
	}

	@Test
	void theKeyExpressionReadsTheRequest() {
		this.contextRunner
			.withPropertyValues(PARTNER + "windows[0].limit=1", PARTNER + "http-client.key=#request.headers.getFirst('X-Tenant')")
			.run((context) -> {
				WebClient limited = webClient(context, "localhost");
				StepVerifier.create(tenant(limited, "a")).expectNext("ok").expectComplete().verify(TIMEOUT);
				StepVerifier.create(tenant(limited, "b")).expectNext("ok").expectComplete().verify(TIMEOUT);
				StepVerifier.create(tenant(limited, "a"))
					.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOfSatisfying(RateLimitExceededException.class,
							(rejection) -> assertThat(rejection.getKey()).isEqualTo("a")))
					.verify(TIMEOUT);
			});
	}

	private WebClient webClient(AssertableApplicationContext context, String host) {
		return context.getBean(WebClient.Builder.class).baseUrl(this.partner.url(host)).build();
	}

	/** A request subscribed on a thread that must not block. */
	private static Mono<String> get(WebClient client) {
		return client.get().uri("/orders").retrieve().bodyToMono(String.class).subscribeOn(subscribing);
	}

	private static Mono<String> tenant(WebClient client, String tenant) {
		return client.get()
			.uri("/orders")
			.header("X-Tenant", tenant)
			.retrieve()
			.bodyToMono(String.class)
			.subscribeOn(subscribing);
	}

}
