package dev.resilience.autoconfigure.web;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.servlet.DispatcherServlet;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RateLimitWebMvcAutoConfiguration}.
 */
class RateLimitWebMvcAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(ResilienceAutoConfiguration.class,
			RateLimiterAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class);

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS);

	@Test
	void runInServletWebApplicationShouldProvideHandlerAndHeaders() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(RateLimitExceptionHandler.class)
			.hasSingleBean(RateLimitResponseHeaders.class));
	}

	@Test
	void runWhenDispatcherServletIsAbsentShouldNotProvideHandlerOrHeaders() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
			.run((context) -> assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class)
				.doesNotHaveBean(RateLimitResponseHeaders.class));
	}

	@Test
	void runInNonWebApplicationShouldNotProvideHandlerOrHeaders() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RateLimitExceptionHandler.class)
				.doesNotHaveBean(RateLimitResponseHeaders.class));
	}

	@Test
	void runWhenUserDefinesHandlerAndHeadersShouldBackOff() {
		RateLimitExceptionHandler handler = new RateLimitExceptionHandler();
		RateLimitResponseHeaders headers = new RateLimitResponseHeaders();
		this.contextRunner.withBean("ownHandler", RateLimitExceptionHandler.class, () -> handler)
			.withBean("ownHeaders", RateLimitResponseHeaders.class, () -> headers)
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitExceptionHandler.class)
					.hasSingleBean(RateLimitResponseHeaders.class);
				assertThat(context.getBean(RateLimitExceptionHandler.class)).isSameAs(handler);
				assertThat(context.getBean(RateLimitResponseHeaders.class)).isSameAs(headers);
			});
	}

}
