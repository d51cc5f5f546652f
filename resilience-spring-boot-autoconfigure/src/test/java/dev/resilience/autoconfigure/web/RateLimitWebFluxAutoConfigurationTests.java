package dev.resilience.autoconfigure.web;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.reactive.DispatcherHandler;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitWebFluxAutoConfiguration}.
 */
class RateLimitWebFluxAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(ResilienceAutoConfiguration.class,
			RateLimiterAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class,
			RateLimitWebFluxAutoConfiguration.class);

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS);

	@Test
	void runInReactiveWebApplicationShouldProvideHandlerFilterAndListener() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(RateLimitWebFluxExceptionHandler.class)
			.hasSingleBean(RateLimitWebExceptionHandler.class)
			.hasSingleBean(RateLimitWebFluxFilter.class)
			.hasSingleBean(RateLimitWebFluxListener.class)
			.doesNotHaveBean(RateLimitExceptionHandler.class)
			.doesNotHaveBean(RateLimitResponseHeaders.class));
	}

	@Test
	void runInReactiveWebApplicationShouldTellTheListenerOfEveryDecision() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.greeting.windows[0].limit=1",
				"resilience.rate-limiters.greeting.windows[0].period=5s")
			.run((context) -> {
				RateLimitExchangeDecisions decisions = RateLimitExchangeDecisions
					.of(MockServerWebExchange.from(MockServerHttpRequest.get("/")));
				RateLimiterRegistry registry = context.getBean(RateLimiterRegistry.class);
				RateLimitExchangeDecisions.runWith(decisions, () -> registry.get("greeting").tryAcquire("key", 1));
				assertThat(decisions.items().rateLimit()).isEqualTo("\"greeting-5s\";r=0;t=5");
			});
	}

	@Test
	void runWhenWebFluxIsAbsentShouldNotProvideHandlerFilterOrListener() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(DispatcherHandler.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RateLimitWebFluxExceptionHandler.class)
				.doesNotHaveBean(RateLimitWebExceptionHandler.class)
				.doesNotHaveBean(RateLimitWebFluxFilter.class)
				.doesNotHaveBean(RateLimitWebFluxListener.class));
	}

	@Test
	void runWhenReactorIsAbsentShouldNotProvideHandlerFilterOrListener() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Mono.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RateLimitWebFluxExceptionHandler.class)
				.doesNotHaveBean(RateLimitWebExceptionHandler.class)
				.doesNotHaveBean(RateLimitWebFluxFilter.class)
				.doesNotHaveBean(RateLimitWebFluxListener.class));
	}

	@Test
	void runInServletWebApplicationShouldProvideTheMvcSupportOnly() {
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.run((context) -> assertThat(context).hasSingleBean(RateLimitExceptionHandler.class)
				.hasSingleBean(RateLimitResponseHeaders.class)
				.doesNotHaveBean(RateLimitWebFluxExceptionHandler.class)
				.doesNotHaveBean(RateLimitWebExceptionHandler.class)
				.doesNotHaveBean(RateLimitWebFluxFilter.class)
				.doesNotHaveBean(RateLimitWebFluxListener.class));
	}

	@Test
	void runInServletWebApplicationWithoutWebFluxOrReactorShouldProvideTheMvcSupport() {
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withClassLoader(new FilteredClassLoader(DispatcherHandler.class, Mono.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimitExceptionHandler.class)
				.hasSingleBean(RateLimitResponseHeaders.class)
				.doesNotHaveBean(RateLimitWebFluxFilter.class));
	}

	@Test
	void runInNonWebApplicationShouldNotProvideHandlerFilterOrListener() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RateLimitWebFluxExceptionHandler.class)
				.doesNotHaveBean(RateLimitWebExceptionHandler.class)
				.doesNotHaveBean(RateLimitWebFluxFilter.class)
				.doesNotHaveBean(RateLimitWebFluxListener.class));
	}

	@Test
	void runWhenUserDefinesHandlerFilterAndListenerShouldBackOff() {
		RateLimitWebFluxExceptionHandler handler = new RateLimitWebFluxExceptionHandler();
		RateLimitWebExceptionHandler webHandler = new RateLimitWebExceptionHandler(ServerCodecConfigurer.create());
		RateLimitWebFluxFilter filter = new RateLimitWebFluxFilter();
		RateLimitWebFluxListener listener = new RateLimitWebFluxListener();
		this.contextRunner.withBean("ownHandler", RateLimitWebFluxExceptionHandler.class, () -> handler)
			.withBean("ownWebHandler", RateLimitWebExceptionHandler.class, () -> webHandler)
			.withBean("ownFilter", RateLimitWebFluxFilter.class, () -> filter)
			.withBean("ownListener", RateLimitWebFluxListener.class, () -> listener)
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitWebFluxExceptionHandler.class)
					.hasSingleBean(RateLimitWebFluxFilter.class)
					.hasSingleBean(RateLimitWebFluxListener.class);
				assertThat(context.getBean(RateLimitWebFluxExceptionHandler.class)).isSameAs(handler);
				assertThat(context.getBean(RateLimitWebExceptionHandler.class)).isSameAs(webHandler);
				assertThat(context.getBean(RateLimitWebFluxFilter.class)).isSameAs(filter);
				assertThat(context.getBean(RateLimitWebFluxListener.class)).isSameAs(listener);
			});
	}

}
