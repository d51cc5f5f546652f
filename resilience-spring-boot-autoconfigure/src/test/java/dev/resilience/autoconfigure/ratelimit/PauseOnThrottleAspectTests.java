package dev.resilience.autoconfigure.ratelimit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.server.ResponseStatusException;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.Throttle;
import dev.resilience.ratelimit.ThrottleSignal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * {@code @RateLimited} calls that end with a partner's throttle signal pause their key (SPEC
 * §10), in every form of SPEC §9, on real proxied beans with BlockHound installed: the failure
 * reaches the caller as it was, the key is paused by then, the next call of that key is rejected
 * with the rest of the pause, and other keys go on.
 */
class PauseOnThrottleAspectTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class))
		.withBean(Partner.class)
		.withPropertyValues("resilience.rate-limiters.partner.token-bucket.refill-tokens=1000",
				"resilience.rate-limiters.partner.token-bucket.refill-period=1h",
				"resilience.rate-limiters.partner.pause-on-throttle.enabled=true",
				"resilience.rate-limiters.partner.pause-on-throttle.default-pause=4s",
				"resilience.rate-limiters.partner.pause-on-throttle.max-pause=1m",
				"resilience.rate-limiters.partner.pause-on-throttle.resume-jitter=0",
				"resilience.rate-limiters.held.max-concurrent=5",
				"resilience.rate-limiters.held.pause-on-throttle.enabled=true",
				"resilience.rate-limiters.held.pause-on-throttle.resume-jitter=0",
				"resilience.rate-limiters.quiet.token-bucket.refill-tokens=1000",
				"resilience.rate-limiters.quiet.token-bucket.refill-period=1h");

	/** Made after BlockHound is installed: a shared scheduler's threads started before may die under it. */
	private static Scheduler subscribing;

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
		subscribing = Schedulers.newParallel("subscribing");
	}

	@AfterAll
	static void disposeScheduler() {
		subscribing.dispose();
	}

	private static HttpHeaders headers(String... namesAndValues) {
		HttpHeaders headers = new HttpHeaders();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			headers.add(namesAndValues[i], namesAndValues[i + 1]);
		}
		return headers;
	}

	private static HttpClientErrorException tooManyRequests(String... headers) {
		return HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", headers(headers),
				new byte[0], StandardCharsets.UTF_8);
	}

	private static WebClientResponseException reactiveTooManyRequests(String... headers) {
		return WebClientResponseException.create(429, "Too Many Requests", headers(headers), new byte[0],
				StandardCharsets.UTF_8);
	}

	/** The rest of a key's pause, in whole seconds rounded up: the test runs on the real clock. */
	private static long pausedSeconds(RateLimiter limiter, String key) {
		RateLimitDecision state = limiter.inspect(key);
		assertThat(state.isPaused()).as("paused").isTrue();
		return (state.getPause().toMillis() + 999) / 1000;
	}

	@Test
	void aBlockingCallThatGetsA429WithRetryAfterPausesItsKeyBeforeTheFailureIsThrown() {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			HttpClientErrorException answer = tooManyRequests("Retry-After", "12");
			partner.answer(() -> answer);

			assertThat(catchThrowable(() -> partner.blocking("alice"))).isSameAs(answer);
			assertThat(pausedSeconds(limiter, "alice")).isEqualTo(12);

			RateLimitExceededException rejected = catchThrowableOfType(RateLimitExceededException.class,
					() -> partner.blocking("alice"));
			assertThat(rejected.getRetryAfter()).isBetween(Duration.ofSeconds(11), Duration.ofSeconds(12));
			assertThat(partner.calls("alice")).isEqualTo(1);
			partner.answer(() -> null);
			assertThat(partner.blocking("bob")).isEqualTo("served bob");
		});
	}

	@Test
	void theStatusMayBeOnACauseAndTheRateLimitFieldOrTheDefaultGiveTheWaitWithoutRetryAfter() {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");

			partner.answer(() -> new IllegalStateException("wrapped", tooManyRequests("RateLimit", "\"p\";r=0;t=7")));
			catchThrowable(() -> partner.blocking("alice"));
			partner.answer(() -> HttpServerErrorException.create(HttpStatus.SERVICE_UNAVAILABLE, "Unavailable",
					headers(), new byte[0], StandardCharsets.UTF_8));
			catchThrowable(() -> partner.blocking("bob"));
			partner.answer(() -> new ResponseStatusException(HttpStatus.TOO_MANY_REQUESTS));
			catchThrowable(() -> partner.blocking("carol"));

			assertThat(pausedSeconds(limiter, "alice")).isEqualTo(7);
			assertThat(pausedSeconds(limiter, "bob")).isEqualTo(4);
			assertThat(pausedSeconds(limiter, "carol")).isEqualTo(4);
		});
	}

	@Test
	void aWaitBeyondMaxPauseIsCut() {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			partner.answer(() -> tooManyRequests("Retry-After", "86400"));

			catchThrowable(() -> partner.blocking("alice"));

			assertThat(pausedSeconds(context.getBean(RateLimiterRegistry.class).get("partner"), "alice")).isEqualTo(60);
		});
	}

	@Test
	void otherFailuresAndLimitersThatDoNotPauseLeaveTheKeyAlone() {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);

			partner.answer(() -> HttpServerErrorException.create(HttpStatus.INTERNAL_SERVER_ERROR, "Boom",
					headers("Retry-After", "12"), new byte[0], StandardCharsets.UTF_8));
			catchThrowable(() -> partner.blocking("alice"));
			partner.answer(() -> new IllegalStateException("not an answer"));
			catchThrowable(() -> partner.blocking("bob"));
			partner.answer(() -> tooManyRequests("Retry-After", "12"));
			catchThrowable(() -> partner.quiet("carol"));

			assertThat(registry.get("partner").inspect("alice").isPaused()).isFalse();
			assertThat(registry.get("partner").inspect("bob").isPaused()).isFalse();
			assertThat(registry.get("quiet").inspect("carol").isPaused()).isFalse();
		});
	}

	@Test
	void aCompletionStageThatFailsWithA429PausesItsKeyBeforeItCompletes() {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			HttpClientErrorException answer = tooManyRequests("Retry-After", "9");
			partner.answer(() -> answer);

			CompletableFuture<String> call = partner.stage("alice");

			assertThat(catchThrowableOfType(CompletionException.class, call::join)).hasCause(answer);
			assertThat(pausedSeconds(limiter, "alice")).isEqualTo(9);
			assertThat(catchThrowableOfType(CompletionException.class, () -> partner.stage("alice").join()))
				.hasCauseInstanceOf(RateLimitExceededException.class);
			assertThat(partner.calls("alice")).isEqualTo(1);
		});
	}

	@Test
	void aMonoAndAFluxThatFailWithA429PauseTheirKeyBeforeTheErrorIsSignalled() {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");
			partner.answer(() -> reactiveTooManyRequests("Retry-After", "9"));

			StepVerifier.create(partner.mono("alice").subscribeOn(subscribing))
				.expectErrorSatisfies((failure) -> {
					assertThat(failure).isInstanceOf(WebClientResponseException.class);
					assertThat(limiter.inspect("alice").isPaused()).isTrue();
				})
				.verify(Duration.ofSeconds(5));
			StepVerifier.create(partner.flux("bob").subscribeOn(subscribing))
				.expectNext("first bob")
				.expectErrorSatisfies((failure) -> assertThat(limiter.inspect("bob").isPaused()).isTrue())
				.verify(Duration.ofSeconds(5));

			assertThat(pausedSeconds(limiter, "alice")).isEqualTo(9);
			StepVerifier.create(partner.mono("alice")).expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(5));
			StepVerifier.create(partner.flux("bob")).expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(5));
			assertThat(partner.calls("alice")).isEqualTo(1);
			assertThat(partner.calls("bob")).isEqualTo(1);
		});
	}

	@Test
	void callsHoldingAConcurrencyPermitPauseBeforeTheyGiveItBack() {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("held");
			partner.answer(() -> reactiveTooManyRequests("Retry-After", "9"));

			StepVerifier.create(partner.heldMono("a")).expectError(WebClientResponseException.class).verify(Duration.ofSeconds(5));
			StepVerifier.create(partner.heldFlux("b")).expectNext("first b")
				.expectError(WebClientResponseException.class).verify(Duration.ofSeconds(5));
			partner.answer(() -> tooManyRequests("Retry-After", "9"));
			assertThat(catchThrowable(() -> partner.heldStage("c").join())).hasCauseInstanceOf(HttpClientErrorException.class);
			catchThrowable(() -> partner.heldBlocking("d"));

			for (String key : List.of("a", "b", "c", "d")) {
				assertThat(pausedSeconds(limiter, key)).as(key).isEqualTo(9);
				assertThat(limiter.inspect(key).getInFlight()).isZero();
			}
		});
	}

	@Test
	void aThrottleSignalBeanReadsOtherClientsExceptionsAndOneThatFailsIsPassedOver() {
		this.contextRunner.withBean("failingSignal", ThrottleSignal.class, () -> (failure) -> {
			throw new IllegalStateException("broken signal");
		}).withBean("vendorSignal", ThrottleSignal.class, () -> (failure) -> (failure instanceof VendorThrottled vendor)
				? Throttle.retryAfter(vendor.wait) : null).run((context) -> {
					Partner partner = context.getBean(Partner.class);
					RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner");

					partner.answer(() -> new VendorThrottled(Duration.ofSeconds(15)));
					catchThrowable(() -> partner.blocking("alice"));
					partner.answer(() -> new IllegalStateException("something else"));
					catchThrowable(() -> partner.blocking("bob"));

					assertThat(pausedSeconds(limiter, "alice")).isEqualTo(15);
					assertThat(limiter.inspect("bob").isPaused()).isFalse();
				});
	}

	static class VendorThrottled extends RuntimeException {

		final Duration wait;

		VendorThrottled(Duration wait) {
			super("vendor says slow down");
			this.wait = wait;
		}

	}

	static class Partner {

		private volatile Supplier<RuntimeException> answer = () -> null;

		private final Map<String, Integer> calls = new ConcurrentHashMap<>();

		void answer(Supplier<RuntimeException> answer) {
			this.answer = answer;
		}

		int calls(String customer) {
			return this.calls.getOrDefault(customer, 0);
		}

		private String serve(String customer) {
			this.calls.merge(customer, 1, Integer::sum);
			RuntimeException failure = this.answer.get();
			if (failure != null) {
				throw failure;
			}
			return "served " + customer;
		}

		@RateLimited(name = "partner", key = "#customer")
		public String blocking(String customer) {
			return serve(customer);
		}

		@RateLimited(name = "quiet", key = "#customer")
		public String quiet(String customer) {
			return serve(customer);
		}

		@RateLimited(name = "partner", key = "#customer")
		public CompletableFuture<String> stage(String customer) {
			return CompletableFuture.supplyAsync(() -> serve(customer));
		}

		@RateLimited(name = "partner", key = "#customer")
		public Mono<String> mono(String customer) {
			return Mono.fromCallable(() -> serve(customer));
		}

		@RateLimited(name = "partner", key = "#customer")
		public Flux<String> flux(String customer) {
			return Flux.concat(Mono.just("first " + customer), Mono.fromCallable(() -> serve(customer)));
		}

		@RateLimited(name = "held", key = "#customer")
		public String heldBlocking(String customer) {
			return serve(customer);
		}

		@RateLimited(name = "held", key = "#customer")
		public CompletableFuture<String> heldStage(String customer) {
			return CompletableFuture.supplyAsync(() -> serve(customer));
		}

		@RateLimited(name = "held", key = "#customer")
		public Mono<String> heldMono(String customer) {
			return Mono.fromCallable(() -> serve(customer)).subscribeOn(subscribing);
		}

		@RateLimited(name = "held", key = "#customer")
		public Flux<String> heldFlux(String customer) {
			return Flux.concat(Mono.just("first " + customer), Mono.fromCallable(() -> serve(customer)));
		}

	}

}
