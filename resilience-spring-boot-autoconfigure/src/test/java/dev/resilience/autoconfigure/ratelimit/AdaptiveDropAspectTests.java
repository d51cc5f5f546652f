package dev.resilience.autoconfigure.ratelimit;

import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
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
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.server.ResponseStatusException;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.pool.CheckoutTimeoutException;
import dev.resilience.pool.OperationTimeoutException;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings.Algorithm;
import dev.resilience.ratelimit.AdaptiveProbe;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Throttle;
import dev.resilience.ratelimit.ThrottleSignal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code @RateLimited} calls of a limiter with {@code max-concurrent: adaptive} that end with a
 * drop (SPEC §11: a throttle signal read as pause-on-throttle reads it, with the limiter's
 * {@code statuses}, though pausing is off; or a timeout) lower their key's limit, in every form of
 * SPEC §9, on real proxied beans with BlockHound installed; a plain failure does not. Each key
 * first runs its probe ({@link AdaptiveProbe}), so its limit is at {@code initial-limit}; every call
 * takes {@link #CALL} on the test clock, the probe's latency, so latency alone never cuts the limit.
 */
class AdaptiveDropAspectTests {

	private static final int INITIAL_LIMIT = 10;

	/** How long every call takes on the test clock, the probe's calls included. */
	private static final Duration CALL = Duration.ofMillis(10);

	private static final String[] FORMS = { "blocking", "stage", "mono", "flux" };

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class)
		.withBean(Partner.class)
		.withPropertyValues("resilience.rate-limiters.llm.max-concurrent=adaptive",
				"resilience.rate-limiters.llm.adaptive-concurrency.initial-limit=" + INITIAL_LIMIT,
				"resilience.rate-limiters.fixed.max-concurrent=" + INITIAL_LIMIT);

	/** Made after BlockHound is installed: a shared scheduler's threads started before may die under it. */
	private static Scheduler subscribing;

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
		subscribing = Schedulers.newParallel("adaptive-drops");
	}

	@AfterAll
	static void disposeScheduler() {
		subscribing.dispose();
	}

	private static HttpClientErrorException tooManyRequests() {
		return HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS, "Too Many Requests", new HttpHeaders(),
				new byte[0], StandardCharsets.UTF_8);
	}

	private static WebClientResponseException reactiveTooManyRequests() {
		return WebClientResponseException.create(429, "Too Many Requests", new HttpHeaders(), new byte[0],
				StandardCharsets.UTF_8);
	}

	private static HttpServerErrorException status(HttpStatus status) {
		return HttpServerErrorException.create(status, status.getReasonPhrase(), new HttpHeaders(), new byte[0],
				StandardCharsets.UTF_8);
	}

	private static OperationTimeoutException operationTimeout() {
		return new OperationTimeoutException("partner", Duration.ofSeconds(2), Duration.ofSeconds(2));
	}

	private static RateLimiter limiter(AssertableApplicationContext context, String name) {
		return context.getBean(RateLimiterRegistry.class).get(name);
	}

	private static int limit(AssertableApplicationContext context, String key) {
		return limiter(context, "llm").inspect(key).getMaxConcurrent();
	}

	/** Runs the probe of each form's key, then ends one call of each form with the failure. */
	private static void failEachForm(AssertableApplicationContext context, String key,
			Supplier<RuntimeException> failure) {
		TestTicker ticker = context.getBean(TestTicker.class);
		for (String form : FORMS) {
			AdaptiveProbe.run(limiter(context, "llm"), key + "-" + form, ticker::advance, CALL);
			assertThat(limit(context, key + "-" + form)).as("after the probe").isEqualTo(INITIAL_LIMIT);
		}
		Partner partner = context.getBean(Partner.class);
		partner.answer(failure);
		assertThat(catchThrowable(() -> partner.blocking(key + "-blocking"))).isNotNull();
		assertThat(catchThrowable(() -> partner.stage(key + "-stage").join())).isNotNull();
		StepVerifier.create(partner.mono(key + "-mono").subscribeOn(subscribing)).expectError().verify(Duration.ofSeconds(5));
		StepVerifier.create(partner.flux(key + "-flux").subscribeOn(subscribing))
			.expectNext("first")
			.expectError()
			.verify(Duration.ofSeconds(5));
	}

	private static void assertLimits(AssertableApplicationContext context, String key, Function<Integer, Boolean> ok,
			String description) {
		for (String form : FORMS) {
			String formKey = key + "-" + form;
			int limit = limit(context, formKey);
			assertThat(ok.apply(limit)).as("%s: limit %d of %s", description, limit, formKey).isTrue();
			assertThat(limiter(context, "llm").inspect(formKey).getInFlight()).as("in flight of " + formKey).isZero();
		}
	}

	@Test
	void aThrottleSignalLowersTheLimitInEveryFormThoughPausingIsOff() {
		this.contextRunner.run((context) -> {
			assertThat(limiter(context, "llm").getSettings().pauseOnThrottle().enabled()).isFalse();
			failEachForm(context, "429", () -> reactiveTooManyRequests());
			failEachForm(context, "blocking-429", AdaptiveDropAspectTests::tooManyRequests);
			failEachForm(context, "wrapped-429", () -> new IllegalStateException("wrapped", tooManyRequests()));
			failEachForm(context, "error-response", () -> new ResponseStatusException(HttpStatus.TOO_MANY_REQUESTS));
			failEachForm(context, "503", () -> status(HttpStatus.SERVICE_UNAVAILABLE));
			for (String key : new String[] { "429", "blocking-429", "wrapped-429", "error-response", "503" }) {
				assertLimits(context, key, (limit) -> limit < INITIAL_LIMIT, "dropped");
				assertThat(limiter(context, "llm").inspect(key + "-blocking").isPaused()).isFalse();
			}
		});
	}

	@Test
	void aTimeoutLowersTheLimitInEveryForm() {
		this.contextRunner.run((context) -> {
			failEachForm(context, "operation", AdaptiveDropAspectTests::operationTimeout);
			failEachForm(context, "wrapped-operation", () -> new IllegalStateException("wrapped", operationTimeout()));
			failEachForm(context, "socket", () -> new ResourceAccessException("I/O error", new SocketTimeoutException("Read timed out")));
			failEachForm(context, "concurrent", () -> new IllegalStateException(new TimeoutException("late")));
			failEachForm(context, "http", () -> new IllegalStateException(new HttpTimeoutException("request timed out")));
			for (String key : new String[] { "operation", "wrapped-operation", "socket", "concurrent", "http" }) {
				assertLimits(context, key, (limit) -> limit < INITIAL_LIMIT, "timed out");
			}
		});
	}

	@Test
	void aPlainFailureAStatusNotInStatusesOrACheckoutTimeoutLeavesTheLimit() {
		this.contextRunner.run((context) -> {
			failEachForm(context, "plain", () -> new IllegalStateException("not an answer"));
			failEachForm(context, "500", () -> status(HttpStatus.INTERNAL_SERVER_ERROR));
			failEachForm(context, "checkout", () -> new CheckoutTimeoutException("pool", Duration.ofSeconds(1),
					Duration.ofSeconds(1)));
			for (String key : new String[] { "plain", "500", "checkout" }) {
				assertLimits(context, key, (limit) -> limit >= INITIAL_LIMIT, "not dropped");
			}
		});
	}

	@Test
	void theLimitersStatusesSayWhatIsAThrottleSignal() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.llm.pause-on-throttle.statuses=503")
			.run((context) -> {
				failEachForm(context, "429", AdaptiveDropAspectTests::tooManyRequests);
				failEachForm(context, "503", () -> status(HttpStatus.SERVICE_UNAVAILABLE));
				assertLimits(context, "429", (limit) -> limit >= INITIAL_LIMIT, "429 is not in statuses");
				assertLimits(context, "503", (limit) -> limit < INITIAL_LIMIT, "503 is in statuses");
			});
	}

	@Test
	void withPausingOnAThrottleSignalBothPausesAndDrops() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.llm.pause-on-throttle.enabled=true",
					"resilience.rate-limiters.llm.pause-on-throttle.resume-jitter=0")
			.run((context) -> {
				failEachForm(context, "429", AdaptiveDropAspectTests::tooManyRequests);
				assertThat(limiter(context, "llm").inspect("429-blocking").isPaused()).isTrue();
				// a paused key's state tells the pause, not the limit: read after the pause
				context.getBean(TestTicker.class).advance(Duration.ofSeconds(2));
				assertLimits(context, "429", (limit) -> limit < INITIAL_LIMIT, "dropped");
			});
	}

	@Test
	void aThrottleSignalBeanReadsADrop() {
		this.contextRunner
			.withBean(ThrottleSignal.class, () -> (failure) -> (failure instanceof UnsupportedOperationException)
					? Throttle.unspecified() : null)
			.run((context) -> {
				failEachForm(context, "vendor", () -> new UnsupportedOperationException("vendor says slow down"));
				assertLimits(context, "vendor", (limit) -> limit < INITIAL_LIMIT, "dropped");
			});
	}

	@Test
	void aLimiterWithAFixedMaxConcurrentKeepsItsLimit() {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			partner.answer(AdaptiveDropAspectTests::tooManyRequests);
			catchThrowable(() -> partner.fixed("alice"));
			assertThat(limiter(context, "fixed").inspect("alice").getMaxConcurrent()).isEqualTo(INITIAL_LIMIT);
		});
	}

	@Test
	void turningALimiterAdaptiveAtRunTimeReadsTheDropsOfCallsAdmittedSince() {
		this.contextRunner.run((context) -> {
			Partner partner = context.getBean(Partner.class);
			RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
			RateLimiter fixed = registry.get("fixed");
			registry.updateSettings("fixed", RateLimiterSettings.builder()
				.adaptiveConcurrency(new AdaptiveConcurrencySettings(Algorithm.GRADIENT, 8, 1, 100), Duration.ofMinutes(1))
				.build());
			AdaptiveProbe.run(fixed, "alice", context.getBean(TestTicker.class)::advance, CALL);
			assertThat(fixed.inspect("alice").getMaxConcurrent()).isEqualTo(8);
			partner.answer(AdaptiveDropAspectTests::tooManyRequests);
			catchThrowable(() -> partner.fixed("alice"));
			assertThat(fixed.inspect("alice").getMaxConcurrent()).isEqualTo(7);
		});
	}

	static class Partner {

		private final TestTicker ticker;

		private volatile Supplier<RuntimeException> answer = () -> null;

		Partner(TestTicker ticker) {
			this.ticker = ticker;
		}

		void answer(Supplier<RuntimeException> answer) {
			this.answer = answer;
		}

		/** Takes {@link #CALL} on the test clock, then answers. */
		private String serve() {
			this.ticker.advance(CALL);
			RuntimeException failure = this.answer.get();
			if (failure != null) {
				throw failure;
			}
			return "served";
		}

		@RateLimited(name = "llm", key = "#customer")
		public String blocking(String customer) {
			return serve();
		}

		@RateLimited(name = "llm", key = "#customer")
		public CompletableFuture<String> stage(String customer) {
			return CompletableFuture.supplyAsync(this::serve);
		}

		@RateLimited(name = "llm", key = "#customer")
		public Mono<String> mono(String customer) {
			return Mono.fromCallable(this::serve).subscribeOn(subscribing);
		}

		@RateLimited(name = "llm", key = "#customer")
		public Flux<String> flux(String customer) {
			return Flux.concat(Mono.just("first"), Mono.fromCallable(this::serve));
		}

		@RateLimited(name = "fixed", key = "#customer")
		public String fixed(String customer) {
			return serve();
		}

	}

}
