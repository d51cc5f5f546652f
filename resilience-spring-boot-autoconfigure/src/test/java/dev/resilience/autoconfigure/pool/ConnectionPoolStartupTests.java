package dev.resilience.autoconfigure.pool;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.pool.ConnectionFactory;
import dev.resilience.pool.WithConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Tests that mistakes in {@code resilience.pools} and {@code @WithConnection} stop startup with a
 * message naming the property or the method.
 */
class ConnectionPoolStartupTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, ConnectionPoolAutoConfiguration.class))
		.withUserConfiguration(Factories.class)
		.withPropertyValues("resilience.pools.llm.factory=workers", "resilience.pools.db.max-size=2");

	@Test
	void runWhenEverythingIsValidShouldStart() {
		this.contextRunner.withBean(ValidClient.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void runWhenPoolIsUnknownShouldFailListingConfiguredNames() {
		this.contextRunner.withBean(UnknownPoolClient.class)
			.run((context) -> assertFailure(context.getStartupFailure(),
					"@WithConnection on UnknownPoolClient.call() names the pool 'lm', which is not configured; "
							+ "configured under resilience.pools are [db, llm]"));
	}

	@Test
	void runWhenAnnotationNamesNoPoolShouldFailNamingTheMethod() {
		this.contextRunner.withBean(NamelessClient.class)
			.run((context) -> assertFailure(context.getStartupFailure(),
					"@WithConnection on NamelessClient.call() names no pool; set pool (or value)"));
	}

	@Test
	void runWhenAnnotationTimeoutIsNotADurationShouldFailNamingTheMethod() {
		this.contextRunner.withBean(UnparsableTimeoutClient.class)
			.run((context) -> assertFailure(context.getStartupFailure(),
					"'soon' of @WithConnection on UnparsableTimeoutClient.call() (timeout) is not a duration; "
							+ "use a form such as 250ms, 5s, 1m or PT5S"));
	}

	@Test
	void runWhenAnnotationTimeoutIsZeroShouldFailNamingTheMethod() {
		this.contextRunner.withBean(ZeroTimeoutClient.class)
			.run((context) -> assertFailure(context.getStartupFailure(),
					"'0s' of @WithConnection on ZeroTimeoutClient.call() (timeout) must be positive"));
	}

	/**
	 * One property line for each case, and the text one message of the startup failure must contain.
	 * @return the cases
	 */
	static Stream<Arguments> misconfiguredProperties() {
		return Stream.of(arguments("resilience.pools.db.max-size=0", "resilience.pools.db.max-size must be positive but was 0"),
				arguments("resilience.pools.db.min-idle=-1",
						"resilience.pools.db.min-idle must be between 0 and max-size (2) but was -1"),
				arguments("resilience.pools.db.min-idle=3",
						"resilience.pools.db.min-idle must be between 0 and max-size (2) but was 3"),
				arguments("resilience.pools.db.timeout=0s", "resilience.pools.db.timeout must be positive but was 0ms"),
				arguments("resilience.pools.db.timeout=-5s", "resilience.pools.db.timeout must be positive but was -5s"),
				arguments("resilience.pools.db.max-idle-time=0ms",
						"resilience.pools.db.max-idle-time must be positive but was 0ms"),
				arguments("resilience.pools.db.timeout=soon",
						"Failed to bind properties under 'resilience.pools.db.timeout' to java.time.Duration"),
				arguments("resilience.pools.llm.factory=wrokers",
						"resilience.pools.llm.factory names the bean 'wrokers', which does not exist; "
								+ "ConnectionFactory beans are [workers]"),
				arguments("resilience.pools.llm.factory=notAFactory",
						"resilience.pools.llm.factory names the bean 'notAFactory', which is a class java.lang.String, "
								+ "not a dev.resilience.pool.ConnectionFactory; ConnectionFactory beans are [workers]"),
				arguments("resilience.pools.notAFactory.max-size=1",
						"resilience.pools.notAFactory: a bean named 'notAFactory' exists already; "
								+ "the pool's bean takes the pool's name, so rename the pool"),
				arguments("resilience.pools.db.max-sise=3", "resilience.pools.db.max-sise"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("misconfiguredProperties")
	void runWhenPropertyIsWrongShouldFailNamingIt(String property, String message) {
		this.contextRunner.withPropertyValues(property)
			.run((context) -> assertFailure(context.getStartupFailure(), message));
	}

	private static void assertFailure(Throwable failure, String message) {
		assertThat(failure).isNotNull();
		assertThat(Failures.messages(failure)).anySatisfy((text) -> assertThat(text).contains(message));
	}

	@Configuration(proxyBeanMethods = false)
	static class Factories {

		@Bean
		ConnectionFactory<StringBuilder> workers() {
			return StringBuilder::new;
		}

		@Bean
		String notAFactory() {
			return "not a factory";
		}

	}

	static class ValidClient {

		@WithConnection(pool = "llm", timeout = "2s")
		public void call() {
		}

	}

	static class UnknownPoolClient {

		@WithConnection(pool = "lm")
		public void call() {
		}

	}

	static class NamelessClient {

		@WithConnection
		public void call() {
		}

	}

	static class UnparsableTimeoutClient {

		@WithConnection(pool = "llm", timeout = "soon")
		public void call() {
		}

	}

	static class ZeroTimeoutClient {

		@WithConnection(pool = "llm", timeout = "0s")
		public void call() {
		}

	}

}
