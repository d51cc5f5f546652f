package dev.resilience.autoconfigure.retry;

import java.util.List;
import java.util.stream.Stream;

import java.io.IOException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.retry.RetryRegistry;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Tests that every mistake in a {@code @Retryable} or in {@code resilience.retries.*} stops
 * startup with a message naming the method or the property.
 */
class RetryableStartupTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, RetryAutoConfiguration.class))
		.withPropertyValues("resilience.retries.partner.max-retries=2", "resilience.retries.billing.delay=1s");

	@Test
	void runWhenEverythingFitsShouldStart() {
		this.contextRunner.withBean(Fitting.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RetryRegistry.class));
	}

	@Test
	void runWhenPolicyIsUnknownShouldFailListingTheConfiguredNames() {
		assertFailure(UnknownPolicy.class, "@Retryable on UnknownPolicy.call() names the retry policy 'partnr', which is"
				+ " not configured; configured under resilience.retries are [partner, billing]");
	}

	@Test
	void runWhenFallbackDoesNotExistShouldFailNamingIt() {
		assertFailure(MissingFallback.class, "@Retryable on MissingFallback.call(String) names the fallbackMethod"
				+ " 'recover', but MissingFallback has no method recover(String, <an exception>)");
	}

	@Test
	void runWhenFallbackLacksTheExceptionParameterShouldFail() {
		assertFailure(FallbackWithoutException.class, "has no method recover(<an exception>)");
	}

	@Test
	void runWhenFallbackReturnsWhatCallersCannotTakeShouldFail() {
		assertFailure(FallbackOfWrongType.class, "@Retryable on FallbackOfWrongType.call() names the fallbackMethod"
				+ " FallbackOfWrongType.recover(Exception), whose return type Integer does not fit String");
	}

	@Test
	void runWhenVoidMethodHasAFallbackReturningAValueShouldFail() {
		assertFailure(VoidWithValueFallback.class, "whose return type String does not fit void");
	}

	@Test
	void runWhenRetryOnNamesAnErrorShouldFailNamingTheMethod() {
		assertFailure(RetryOnError.class, "@Retryable on RetryOnError.call(): retry-on names java.lang.StackOverflowError,"
				+ " which is never retried");
	}

	@Test
	void runWhenFallbackTakesAnErrorShouldFailNamingIt() {
		assertFailure(FallbackOfError.class, "@Retryable on FallbackOfError.call(String) names the fallbackMethod"
				+ " FallbackOfError.recover(String, OutOfMemoryError), whose exception parameter OutOfMemoryError"
				+ " never reaches it");
	}

	@Test
	void runWhenRetryIfDoesNotParseShouldFailNamingIt() {
		assertFailure(UnparsableCondition.class,
				"The SpEL expression '#exception.message ==' of @Retryable on UnparsableCondition.call() (retryIf) does not parse");
	}

	@Test
	void runWhenRetryIfResultDoesNotParseShouldFailNamingIt() {
		assertFailure(UnparsableResultCondition.class, "(retryIfResult) does not parse");
	}

	@Test
	void runWhenDurationIsUnparsableShouldFailNamingIt() {
		assertFailure(BadDuration.class, "'soon' of @Retryable on BadDuration.call() (maxDuration) is not a duration");
	}

	@Test
	void runWhenAttributeIsOutOfRangeShouldFailNamingTheMethod() {
		assertFailure(NegativeRetries.class, "@Retryable on NegativeRetries.call(): max-retries must not be negative, but was -1");
	}

	@Test
	void runWhenPlaceholderIsMissingShouldFailNamingIt() {
		assertFailure(MissingPlaceholder.class, "Cannot resolve '${nowhere}' of @Retryable on MissingPlaceholder.call() (delay)");
	}

	@Test
	void runWhenBudgetRatioIsSetShouldShareOneBudget() {
		this.contextRunner.withPropertyValues("resilience.retries.partner.budget.ratio=0.2",
				"resilience.retries.partner.budget.window=5s", "resilience.retries.partner.budget.min-retries-per-second=2")
			.run((context) -> {
				RetryRegistry registry = context.getBean(RetryRegistry.class);
				assertThat(registry.getBudget("partner").available()).isEqualTo(10);
				assertThat(registry.getBudget("billing")).isNull();
			});
	}

	/**
	 * The property lines of each case, and the messages its startup failure must carry, each the
	 * whole message of one exception in the cause chain.
	 * @return the cases
	 */
	static Stream<Arguments> misconfiguredProperties() {
		String budgetOff = "resilience.retries.partner.budget.window and resilience.retries.partner.budget.min-retries-per-second"
				+ " only tune a budget, which is off until resilience.retries.partner.budget.ratio is set";
		return Stream.of(
				arguments(List.of("resilience.retries.partner.max-retries=-1"),
						List.of("resilience.retries.partner.max-retries must not be negative, but was -1")),
				arguments(List.of("resilience.retries.partner.retry-on=java.lang.String"),
						List.of("resilience.retries.partner.retry-on names java.lang.String, which is not an exception")),
				arguments(List.of("resilience.retries.partner.no-retry-on=java.lang.Integer"),
						List.of("resilience.retries.partner.no-retry-on names java.lang.Integer, which is not an exception")),
				arguments(List.of("resilience.retries.partner.retry-on=com.example.Missing"),
						List.of("Failed to bind properties under 'resilience.retries.partner.retry-on' to"
								+ " java.util.List<java.lang.Class<java.lang.Throwable>>",
								"Could not find class [com.example.Missing]")),
				arguments(List.of("resilience.retries.partner.retry-on=java.io.IOException,java.lang.AssertionError"),
						List.of("resilience.retries.partner.retry-on names java.lang.AssertionError, which is never retried:"
								+ " Errors and InterruptedException end a call at once")),
				arguments(List.of("resilience.retries.partner.budget.ratio=-0.5"),
						List.of("resilience.retries.partner.budget.ratio must be a finite number of at least 0, but was -0.5")),
				arguments(
						List.of("resilience.retries.partner.budget.ratio=0.2",
								"resilience.retries.partner.budget.min-retries-per-second=-1"),
						List.of("resilience.retries.partner.budget.min-retries-per-second must not be negative, but was -1")),
				arguments(List.of("resilience.retries.partner.delay=2s", "resilience.retries.partner.max-delay=1s"),
						List.of("resilience.retries.partner.max-delay (1s) must not be shorter than delay (2s)")),
				arguments(List.of("resilience.retries.partner.budget.window=5s"), List.of(budgetOff)),
				arguments(List.of("resilience.retries.partner.budget.min-retries-per-second=2"), List.of(budgetOff)),
				arguments(List.of("resilience.retries.partner.delay=soon"),
						List.of("Failed to bind properties under 'resilience.retries.partner.delay' to java.time.Duration")));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("misconfiguredProperties")
	void runWhenPropertyIsWrongShouldFailNamingIt(List<String> properties, List<String> messages) {
		this.contextRunner.withPropertyValues(properties.toArray(String[]::new))
			.run((context) -> assertThat(Failures.messages(context.getStartupFailure())).containsAll(messages));
	}

	private void assertFailure(Class<?> bean, String message) {
		this.contextRunner.withBean(bean).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure())).anySatisfy((line) -> assertThat(line).contains(message));
		});
	}

	static class Fitting {

		@Retryable(name = "partner", fallbackMethod = "recover", retryIf = "#exception.message != null",
				retryIfResult = "#result == null", maxDuration = "${test.max-duration:5s}")
		public CharSequence call(String id) throws IOException {
			return id;
		}

		String recover(String id, IOException failure) {
			return "recovered";
		}

	}

	static class UnknownPolicy {

		@Retryable("partnr")
		public void call() {
		}

	}

	static class MissingFallback {

		@Retryable(fallbackMethod = "recover")
		public String call(String id) {
			return id;
		}

		String recover(Long id, Exception failure) {
			return "recovered";
		}

	}

	static class FallbackWithoutException {

		@Retryable(fallbackMethod = "recover")
		public String call() {
			return "";
		}

		String recover() {
			return "recovered";
		}

	}

	static class RetryOnError {

		@Retryable(retryOn = StackOverflowError.class)
		public String call() {
			return "";
		}

	}

	static class FallbackOfError {

		@Retryable(fallbackMethod = "recover")
		public String call(String id) {
			return id;
		}

		String recover(String id, OutOfMemoryError error) {
			return "recovered";
		}

	}

	static class FallbackOfWrongType {

		@Retryable(fallbackMethod = "recover")
		public String call() {
			return "";
		}

		Integer recover(Exception failure) {
			return 1;
		}

	}

	static class VoidWithValueFallback {

		@Retryable(fallbackMethod = "recover")
		public void call() {
		}

		String recover(Exception failure) {
			return "";
		}

	}

	static class UnparsableCondition {

		@Retryable(retryIf = "#exception.message ==")
		public void call() {
		}

	}

	static class UnparsableResultCondition {

		@Retryable(retryIfResult = "#result ++ )")
		public String call() {
			return "";
		}

	}

	static class BadDuration {

		@Retryable(maxDuration = "soon")
		public void call() {
		}

	}

	static class NegativeRetries {

		@Retryable(maxRetries = -1)
		public void call() {
		}

	}

	static class MissingPlaceholder {

		@Retryable(delay = "${nowhere}")
		public void call() {
		}

	}

}
