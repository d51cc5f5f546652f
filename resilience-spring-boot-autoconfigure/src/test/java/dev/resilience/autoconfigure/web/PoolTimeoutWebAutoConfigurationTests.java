package dev.resilience.autoconfigure.web;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.codec.ServerCodecConfigurer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link PoolTimeoutWebMvcAutoConfiguration} and {@link PoolTimeoutWebFluxAutoConfiguration}.
 */
class PoolTimeoutWebAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations
		.of(PoolTimeoutWebMvcAutoConfiguration.class, PoolTimeoutWebFluxAutoConfiguration.class);

	@Test
	void runInServletWebApplicationShouldProvideTheMvcHandlerOnly() {
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.run((context) -> assertThat(context).hasSingleBean(PoolTimeoutExceptionHandler.class)
				.doesNotHaveBean(PoolTimeoutWebFluxExceptionHandler.class)
				.doesNotHaveBean(PoolTimeoutWebExceptionHandler.class));
	}

	@Test
	void runInReactiveWebApplicationShouldProvideTheWebFluxHandlersOnly() {
		new ReactiveWebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.run((context) -> assertThat(context).hasSingleBean(PoolTimeoutWebFluxExceptionHandler.class)
				.hasSingleBean(PoolTimeoutWebExceptionHandler.class)
				.doesNotHaveBean(PoolTimeoutExceptionHandler.class));
	}

	@Test
	void runInNonWebApplicationShouldProvideNoHandler() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(PoolTimeoutExceptionHandler.class)
				.doesNotHaveBean(PoolTimeoutWebFluxExceptionHandler.class)
				.doesNotHaveBean(PoolTimeoutWebExceptionHandler.class));
	}

	@Test
	void runWhenUserDefinesHandlersShouldBackOff() {
		PoolTimeoutExceptionHandler handler = new PoolTimeoutExceptionHandler();
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withBean("ownHandler", PoolTimeoutExceptionHandler.class, () -> handler)
			.run((context) -> assertThat(context.getBean(PoolTimeoutExceptionHandler.class)).isSameAs(handler));
		PoolTimeoutWebExceptionHandler webHandler = new PoolTimeoutWebExceptionHandler(ServerCodecConfigurer.create());
		new ReactiveWebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withBean("ownWebHandler", PoolTimeoutWebExceptionHandler.class, () -> webHandler)
			.run((context) -> assertThat(context.getBean(PoolTimeoutWebExceptionHandler.class)).isSameAs(webHandler));
	}

}
