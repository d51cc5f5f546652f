package dev.resilience.autoconfigure.diagnostics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.poll.PollUntil;
import dev.resilience.pool.ConnectionFactory;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests that the starter's configuration mistakes stop a real {@link SpringApplication} with Spring
 * Boot's "APPLICATION FAILED TO START" report, its Description naming the property or the method
 * and its Action saying what to change, instead of a stack trace; and that other failures are left
 * to Boot.
 */
@ExtendWith(OutputCaptureExtension.class)
class ResilienceFailureAnalyzerStartupTests {

	private static final String LIMITER = "--resilience.rate-limiters.partner-api.";

	@Test
	void misspelledLimiterNameShouldSuggestTheConfiguredOne(CapturedOutput output) {
		fail(MisspelledLimiter.class);
		assertReport(output, "@RateLimited on MisspelledLimiter.fetch(String) names the rate limiter 'partner-apii', "
				+ "which is not configured; configured under resilience.rate-limiters are [partner-api]",
				"Did you mean 'partner-api'? Name one of [partner-api] in the annotation, or configure "
						+ "resilience.rate-limiters.partner-apii.");
	}

	@Test
	void misspelledArgumentInAKeyShouldNameTheArguments(CapturedOutput output) {
		fail(MisspelledKey.class);
		assertReport(output, "The SpEL expression '#customerID' of @RateLimited on MisspelledKey.fetchOrder(String, "
				+ "long) (key) names #customerID, which is not an argument of the method; the method's arguments are "
				+ "[#customerId, #orderId]",
				"Did you mean #customerId? Name an argument of the method, by its name or by its position (#p0 or #a0).");
	}

	@Test
	void misspelledVariableInRetryIfShouldNameTheVariable(CapturedOutput output) {
		fail(MisspelledRetryIf.class);
		assertReport(output, "The SpEL expression '#exeption.message != null' of @Retryable on "
				+ "MisspelledRetryIf.fetch(String) (retryIf) names #exeption, which is not an argument of the method "
				+ "nor a variable it is given; the method's arguments are [#id], its variables [#exception]",
				"Did you mean #exception? Name an argument of the method, by its name or by its position (#p0 or #a0), "
						+ "or one of the variables [#exception].");
	}

	@Test
	void argumentMissingFromRetryIfResultShouldNameTheArguments(CapturedOutput output) {
		fail(MissingArgumentRetryIfResult.class);
		assertReport(output, "The SpEL expression '#result == #expected' of @Retryable on "
				+ "MissingArgumentRetryIfResult.fetch(String) (retryIfResult) names #expected, which is not an argument "
				+ "of the method nor a variable it is given; the method's arguments are [#id], its variables [#result]",
				"Name an argument of the method, by its name or by its position (#p0 or #a0), or one of the variables "
						+ "[#result].");
	}

	@Test
	void misspelledVariableInUntilShouldNameTheVariable(CapturedOutput output) {
		fail(MisspelledUntil.class);
		assertReport(output, "The SpEL expression '#reslt == 'DONE'' of @PollUntil on MisspelledUntil.status(String) "
				+ "(until) names #reslt, which is not an argument of the method nor a variable it is given; the "
				+ "method's arguments are [#id], its variables [#result]",
				"Did you mean #result? Name an argument of the method, by its name or by its position (#p0 or #a0), or "
						+ "one of the variables [#result].");
	}

	@Test
	void expressionThatDoesNotParseShouldNameTheMethod(CapturedOutput output) {
		fail(UnparsableKey.class);
		assertThat(description(output)).startsWith(
				"The SpEL expression '#id +' of @RateLimited on UnparsableKey.fetch(String) (key) does not parse: ");
		assertThat(action(output)).isEqualTo("Correct the expression: it is Spring Expression Language over the "
				+ "method's arguments (#name, #p0, #a0) and beans (@name).");
	}

	@Test
	void missingFallbackShouldSayWhatToDeclare(CapturedOutput output) {
		fail(MissingFallback.class);
		assertReport(output, "@Retryable on MissingFallback.fetch(String) names the fallbackMethod "
				+ "'recover', but MissingFallback has no method recover(String, <an exception>)",
				"Declare recover(String, <an exception>) in MissingFallback, returning what the method returns, or "
						+ "correct fallbackMethod.");
	}

	@Test
	void misspelledPoolNameShouldSuggestTheConfiguredOne(CapturedOutput output) {
		fail(MisspelledPool.class);
		assertReport(output, "@WithConnection on MisspelledPool.call() names the pool 'lm', which is not configured; "
				+ "configured under resilience.pools are [llm]",
				"Did you mean 'llm'? Name one of [llm] in the annotation, or configure resilience.pools.lm.");
	}

	@Test
	void unknownPollNameShouldListTheConfiguredOnes(CapturedOutput output) {
		fail(UnknownPoll.class);
		assertReport(output, "@PollUntil on UnknownPoll.status(String) names the poll configuration 'orders', which "
				+ "is not configured; configured under resilience.polls are [export]",
				"Name one of [export] in the annotation, or configure resilience.polls.orders.");
	}

	@Test
	void refusedPropertyShouldBeNamed(CapturedOutput output) {
		fail(Valid.class, LIMITER + "windows[1].limit=0", LIMITER + "windows[1].period=5s");
		assertReport(output, "resilience.rate-limiters.partner-api.windows[1].limit must be positive but was 0",
				"Correct resilience.rate-limiters.partner-api.windows[1].limit in the application's configuration "
						+ "(application.yml or application.properties), as the description says.");
	}

	@Test
	void refusedPoolPropertyShouldBeNamed(CapturedOutput output) {
		fail(Valid.class, "--resilience.pools.llm.min-idle=3");
		assertReport(output, "resilience.pools.llm.min-idle must be between 0 and max-size (2) but was 3",
				"Correct resilience.pools.llm.min-idle in the application's configuration (application.yml or "
						+ "application.properties), as the description says.");
	}

	@Test
	void misspelledFactoryShouldSuggestTheBean(CapturedOutput output) {
		fail(Factories.class, "--resilience.pools.llm.factory=wrokers");
		assertReport(output, "resilience.pools.llm.factory names the bean 'wrokers', which does not exist; "
				+ "ConnectionFactory beans are [workers]",
				"Did you mean 'workers'? Set resilience.pools.llm.factory to the name of a ConnectionFactory bean, define "
						+ "one named 'wrokers', or remove the property to make a pool of permits.");
	}

	/**
	 * A value that does not bind is blamed on its own properties bean, not on whichever bean bound the
	 * first resilience properties (the check for unknown keys binds them all).
	 */
	@Test
	void durationThatDoesNotBindShouldNameThePropertyAndTheForm(CapturedOutput output) {
		fail(Valid.class, LIMITER + "max-wait=soon");
		assertReport(output, "resilience.rate-limiters.partner-api.max-wait cannot be 'soon': 'soon' is not a valid "
				+ "duration (from \"resilience.rate-limiters.partner-api.max-wait\" from property source \"commandLineArgs\")",
				"Write resilience.rate-limiters.partner-api.max-wait as a duration such as 250ms, 5s, 1m or PT5S.");
		assertThat(output.getOut().lines().filter((line) -> line.contains("WARN")).toList())
			.singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.contains("Exception encountered during context initialization")
			.contains("RateLimitingProperties")
			.doesNotContain("autoconfigure.ResilienceProperties")
			.doesNotContain("'llm'");
	}

	@Test
	void enumThatDoesNotBindShouldListTheValues(CapturedOutput output) {
		fail(Valid.class, LIMITER + "on-store-failure=fail-opne");
		assertThat(description(output)).isEqualTo("resilience.rate-limiters.partner-api.on-store-failure cannot be "
				+ "'fail-opne' (from \"resilience.rate-limiters.partner-api.on-store-failure\" from property source "
				+ "\"commandLineArgs\")");
		assertThat(action(output))
			.isEqualTo("Write resilience.rate-limiters.partner-api.on-store-failure as one of fail-open, fail-closed.");
	}

	@Test
	void unknownKeyShouldBeNamed(CapturedOutput output) {
		fail(Valid.class, LIMITER + "tokne-bucket.capacity=10");
		assertThat(description(output)).isEqualTo("resilience.rate-limiters.partner-api.tokne-bucket.capacity is not "
				+ "a property of the resilience starter (from \"resilience.rate-limiters.partner-api.tokne-bucket.capacity\" "
				+ "from property source \"commandLineArgs\")");
		assertThat(action(output)).startsWith("Correct the property's name, or remove it");
	}

	@Test
	void validConfigurationShouldStart() {
		try (ConfigurableApplicationContext context = application(Valid.class).run(arguments())) {
			assertThat(context.isActive()).isTrue();
		}
	}

	@Test
	void otherFailuresShouldBeLeftToBoot(CapturedOutput output) {
		fail(Broken.class);
		assertThat(output).doesNotContain("APPLICATION FAILED TO START").contains("Application run failed");
	}

	@Test
	void otherPropertiesShouldBeLeftToBoot(CapturedOutput output) {
		fail(OtherPropertiesUser.class, "--app.timeout=soon");
		assertThat(description(output)).startsWith("Failed to bind properties under 'app.timeout'");
		assertThat(action(output)).isEqualTo("Update your application's configuration");
	}

	private static void fail(Class<?> bean, String... properties) {
		SpringApplication application = application(bean);
		assertThatException().isThrownBy(() -> application.run(arguments(properties)).close());
	}

	private static SpringApplication application(Class<?> bean) {
		SpringApplication application = new SpringApplication(App.class, bean);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setBannerMode(Banner.Mode.OFF);
		return application;
	}

	private static String[] arguments(String... properties) {
		List<String> arguments = new ArrayList<>(List.of(LIMITER + "windows[0].limit=5",
				LIMITER + "windows[0].period=1s", "--resilience.retries.partner-api.max-retries=2",
				"--resilience.polls.export.max-attempts=3", "--resilience.pools.llm.max-size=2",
				"--spring.main.register-shutdown-hook=false"));
		arguments.addAll(List.of(properties));
		return arguments.toArray(String[]::new);
	}

	private static void assertReport(CapturedOutput output, String description, String action) {
		assertThat(description(output)).isEqualTo(description);
		assertThat(action(output)).isEqualTo(action);
		assertThat(output).doesNotContain("Application run failed");
	}

	/** The report's Description, between its heading and the Action's. */
	private static String description(CapturedOutput output) {
		String out = output.getOut();
		assertThat(out).contains("APPLICATION FAILED TO START");
		int start = out.indexOf("Description:\n\n") + "Description:\n\n".length();
		return out.substring(start, out.indexOf("\n\nAction:\n\n", start));
	}

	private static String action(CapturedOutput output) {
		String out = output.getOut();
		int start = out.indexOf("\n\nAction:\n\n") + "\n\nAction:\n\n".length();
		int end = out.indexOf('\n', start);
		return out.substring(start, (end >= 0) ? end : out.length());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
			ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class,
			PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class })
	static class App {

	}

	static class Valid {

		@RateLimited(name = "partner-api", key = "#customerId")
		@Retryable(name = "partner-api", retryIf = "#exception.message != null")
		public String fetch(String customerId) {
			return customerId;
		}

	}

	static class MisspelledLimiter {

		@RateLimited("partner-apii")
		public String fetch(String id) {
			return id;
		}

	}

	static class MisspelledKey {

		@RateLimited(name = "partner-api", key = "#customerID")
		public String fetchOrder(String customerId, long orderId) {
			return customerId + orderId;
		}

	}

	static class MisspelledRetryIf {

		@Retryable(retryIf = "#exeption.message != null")
		public String fetch(String id) {
			return id;
		}

	}

	static class MissingArgumentRetryIfResult {

		@Retryable(retryIfResult = "#result == #expected")
		public String fetch(String id) {
			return id;
		}

	}

	static class MisspelledUntil {

		@PollUntil(until = "#reslt == 'DONE'")
		public String status(String id) {
			return id;
		}

	}

	static class UnparsableKey {

		@RateLimited(name = "partner-api", key = "#id +")
		public String fetch(String id) {
			return id;
		}

	}

	static class MissingFallback {

		@Retryable(fallbackMethod = "recover")
		public String fetch(String id) {
			return id;
		}

	}

	static class MisspelledPool {

		@WithConnection("lm")
		public String call() {
			return "done";
		}

	}

	static class UnknownPoll {

		@PollUntil("orders")
		public String status(String id) {
			return id;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Factories {

		@Bean
		ConnectionFactory<Object> workers() {
			return Object::new;
		}

	}

	static class Broken {

		Broken() {
			throw new IllegalStateException("resilience is not the problem here");
		}

	}

	/** Binds its properties through a bean method, so that no class of the tests carries the annotation. */
	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties
	static class OtherPropertiesUser {

		@Bean
		@ConfigurationProperties("app")
		OtherProperties otherProperties() {
			return new OtherProperties();
		}

	}

	static class OtherProperties {

		private Duration timeout = Duration.ZERO;

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

}
