package dev.resilience.autoconfigure.web.client;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A request made through a limited client inside a {@code @RateLimited} call that the same
 * limiter already admitted is not decided a second time (the call's key here is the request's, so
 * a second decision would take a second token of it), and its answer is still read for the
 * partner's signals; inside a call of another limiter, it is decided as any request. BlockHound
 * is installed: the {@code Mono} method's request, on Reactor Netty's threads, must not block.
 */
class AdmittedCallsTests {

	private static final String PARTNER = "resilience.rate-limiters.partner.";

	@AutoClose
	private final PartnerServer partner = new PartnerServer();

	private final ApplicationContextRunner contextRunner = LimitedClients.webClients()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class))
		.withUserConfiguration(ApiConfiguration.class)
		.withPropertyValues(PARTNER + "windows[0].limit=2", PARTNER + "windows[0].period=1m",
				PARTNER + "http-client.hosts=localhost", PARTNER + "pause-on-throttle.enabled=true",
				PARTNER + "pause-on-throttle.resume-jitter=0", "resilience.rate-limiters.quiet.max-concurrent=5");

	@BeforeAll
	static void installBlockHound() {
		LimitedClients.installBlockHound();
	}

	@Test
	void aBlockingCallsRequestIsDecidedOnce() {
		this.contextRunner.withPropertyValues("partner.url=" + this.partner.url("localhost")).run((context) -> {
			PartnerApi api = context.getBean(PartnerApi.class);
			assertThat(api.blocking()).isEqualTo("ok");
			assertThat(api.blocking()).isEqualTo("ok");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(api::blocking);
			assertThat(this.partner.received("localhost")).isEqualTo(2);
		});
	}

	@Test
	void aMonoCallsRequestIsDecidedOnce() {
		this.contextRunner.withPropertyValues("partner.url=" + this.partner.url("localhost")).run((context) -> {
			PartnerApi api = context.getBean(PartnerApi.class);
			StepVerifier.create(api.reactive()).expectNext("ok").expectComplete().verify(Duration.ofSeconds(10));
			StepVerifier.create(api.reactive()).expectNext("ok").expectComplete().verify(Duration.ofSeconds(10));
			StepVerifier.create(api.reactive()).expectError(RateLimitExceededException.class).verify(Duration.ofSeconds(10));
			assertThat(this.partner.received("localhost")).isEqualTo(2);
		});
	}

	@Test
	void theAnswerToARequestDecidedOnceIsStillReadForSignals() {
		this.contextRunner.withPropertyValues("partner.url=" + this.partner.url("localhost"), PARTNER + "windows[0].limit=100")
			.run((context) -> {
				PartnerApi api = context.getBean(PartnerApi.class);
				this.partner.answerNext(200, Map.of("RateLimit", "\"p\";r=0;t=2"));
				assertThat(api.blocking()).isEqualTo("ok");
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(api::blocking)
					.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(2)));
				this.partner.answerNext(200, Map.of("RateLimit", "\"p\";r=0;t=3"));
				context.getBean(RateLimiterRegistry.class).get("partner").reset("localhost");
				StepVerifier.create(api.reactive()).expectNext("ok").expectComplete().verify(Duration.ofSeconds(10));
				StepVerifier.create(api.reactive())
					.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOfSatisfying(RateLimitExceededException.class,
							(rejection) -> assertThat(rejection.getRetryAfter()).isEqualTo(Duration.ofSeconds(3))))
					.verify(Duration.ofSeconds(10));
			});
	}

	@Test
	void aRequestInsideACallOfAnotherLimiterIsDecided() {
		this.contextRunner.withPropertyValues("partner.url=" + this.partner.url("localhost")).run((context) -> {
			PartnerApi api = context.getBean(PartnerApi.class);
			assertThat(api.quiet()).isEqualTo("ok");
			assertThat(api.quiet()).isEqualTo("ok");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(api::quiet)
				.satisfies((ex) -> assertThat(ex.getLimiterName()).isEqualTo("partner"));
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ApiConfiguration {

		@Bean
		PartnerApi partnerApi(RestClient.Builder rest, WebClient.Builder web, Environment environment) {
			String url = environment.getRequiredProperty("partner.url");
			return new PartnerApi(rest.baseUrl(url).build(), web.baseUrl(url).build());
		}

	}

	static class PartnerApi {

		private final RestClient rest;

		private final WebClient web;

		PartnerApi(RestClient rest, WebClient web) {
			this.rest = rest;
			this.web = web;
		}

		@RateLimited(name = "partner", key = "'localhost'")
		public String blocking() {
			return this.rest.get().uri("/orders").retrieve().body(String.class);
		}

		@RateLimited(name = "partner", key = "'localhost'")
		public Mono<String> reactive() {
			return this.web.get().uri("/orders").retrieve().bodyToMono(String.class);
		}

		@RateLimited(name = "quiet")
		public String quiet() {
			return this.rest.get().uri("/orders").retrieve().body(String.class);
		}

	}

}
