package dev.resilience.autoconfigure.actuate;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ResilienceEndpointAutoConfiguration}.
 */
class ResilienceEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				ResilienceEndpointAutoConfiguration.class));

	@Test
	void runWhenExposedShouldHaveEndpointAndWebExtensionBeans() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=resilience")
			.run((context) -> assertThat(context).hasSingleBean(ResilienceEndpoint.class)
				.hasSingleBean(ResilienceEndpointWebExtension.class));
	}

	/** GET /actuator/resilience/methods shows the annotated methods, so no rate limiter may be named so. */
	@Test
	void runWhenARateLimiterIsNamedMethodsShouldFailNamingIt() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=resilience",
					"resilience.rate-limiters.methods.windows[0].limit=1",
					"resilience.rate-limiters.methods.windows[0].period=1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.satisfies((failure) -> assertThat(Failures.messages(failure)).contains(
						"Rate limiter 'methods' (resilience.rate-limiters.methods) cannot be shown by GET "
								+ "/actuator/resilience/methods, which shows the annotated methods: rename it")));
	}

	@Test
	void runWhenExposedOnlyOverJmxShouldAllowALimiterNamedMethods() {
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=resilience",
					"resilience.rate-limiters.methods.windows[0].limit=1",
					"resilience.rate-limiters.methods.windows[0].period=1s")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(ResilienceEndpoint.class));
	}

	@Test
	void runWhenExposedOnlyOverJmxShouldHaveEndpointButNoWebExtension() {
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=resilience")
			.run((context) -> assertThat(context).hasSingleBean(ResilienceEndpoint.class)
				.doesNotHaveBean(ResilienceEndpointWebExtension.class));
	}

	@Test
	void runWhenNotExposedShouldNotHaveEndpointBean() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(ResilienceEndpoint.class));
	}

	@Test
	void runWhenAccessIsNoneShouldNotHaveEndpointBean() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=resilience",
					"management.endpoint.resilience.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(ResilienceEndpoint.class));
	}

	@Test
	void runWhenActuatorIsAbsentShouldNotHaveEndpointBean() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.withPropertyValues("management.endpoints.web.exposure.include=resilience")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimiterRegistry.class)
				.doesNotHaveBean(ResilienceEndpoint.class));
	}

	@Test
	void runWhenNoActuatorClassIsPresentShouldStartWithoutEndpointBean() {
		// Imported by name, the auto-configuration is read with ASM as in an application, so that
		// annotations whose types are missing are skipped rather than loaded through the test's
		// class loader.
		new ApplicationContextRunner().withUserConfiguration(ImportedByName.class)
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
			.withPropertyValues("management.endpoints.web.exposure.include=resilience")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimiterRegistry.class)
				.doesNotHaveBean(ResilienceEndpoint.class));
	}

	@Test
	void runWhenImportedByNameAndExposedShouldHaveEndpointBean() {
		new ApplicationContextRunner().withUserConfiguration(ImportedByName.class)
			.withPropertyValues("management.endpoints.web.exposure.include=resilience")
			.run((context) -> assertThat(context).hasSingleBean(ResilienceEndpoint.class));
	}

	@Test
	void runWhenUserDefinesEndpointShouldBackOff() {
		ResilienceEndpoint own = new ResilienceEndpoint(StoreRateLimiterRegistry.builder().build());
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=resilience")
			.withBean(ResilienceEndpoint.class, () -> own)
			.run((context) -> {
				assertThat(context).hasSingleBean(ResilienceEndpoint.class);
				assertThat(context.getBean(ResilienceEndpoint.class)).isSameAs(own);
			});
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
			ResilienceEndpointAutoConfiguration.class })
	static class ImportedByName {

	}

}
