package dev.resilience.autoconfigure.poll;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.poll.PollUntil;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that mistakes in {@link PollUntil @PollUntil} annotations and {@code resilience.polls.*}
 * stop startup with a message naming the method or the property.
 */
class PollUntilStartupTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, PollAutoConfiguration.class))
		.withPropertyValues("resilience.polls.export.timeout=30s", "resilience.polls.report.max-attempts=3");

	@Test
	void runWhenAnnotationsAreValidShouldStart() {
		this.contextRunner.withBean(ValidClient.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void runWhenUntilDoesNotParseShouldFailNamingTheMethod() {
		assertFailure(UnparsableUntilClient.class, "The SpEL expression '#result.status ==' of "
				+ "@PollUntil on UnparsableUntilClient.status(String) (until) does not parse");
	}

	@Test
	void runWhenAttemptsAreUnlimitedWithoutTimeoutShouldFailNamingTheMethod() {
		assertFailure(UnlimitedClient.class, "@PollUntil on UnlimitedClient.status(): "
				+ "unlimited max-attempts (-1) needs a timeout, or the poll could never end");
	}

	@Test
	void runWhenNameIsUnknownShouldFailListingConfiguredNames() {
		assertFailure(UnknownNameClient.class, "@PollUntil on UnknownNameClient.status() names the poll configuration 'exports'"
				+ ", which is not configured; configured under resilience.polls are [export, report]");
	}

	@Test
	void runWhenDurationDoesNotParseShouldFailNamingTheAttribute() {
		assertFailure(BadDurationClient.class, "'ten seconds' of @PollUntil on BadDurationClient.status() (timeout) "
				+ "is not a duration; use a form such as 250ms, 5s, 1m or PT5S");
	}

	@Test
	void runWhenAttemptsAreZeroShouldFailNamingTheMethod() {
		assertFailure(NoAttemptsClient.class,
				"@PollUntil on NoAttemptsClient.status(): max-attempts must be at least 1, or -1 for unlimited, but was 0");
	}

	@Test
	void runWhenVoidMethodHasNoConditionShouldFail() {
		assertFailure(VoidClient.class, "@PollUntil on VoidClient.refresh() returns nothing, so the default condition "
				+ "(a present result) could never be met; set until");
	}

	@Test
	void runWhenStageOfVoidHasNoConditionShouldFail() {
		assertFailure(VoidStageClient.class, "@PollUntil on VoidStageClient.refresh() returns nothing, so the default "
				+ "condition (a present result) could never be met; set until");
	}

	@Test
	void runWhenMonoOfVoidHasNoConditionShouldFail() {
		assertFailure(VoidMonoClient.class, "@PollUntil on VoidMonoClient.refresh() returns nothing, so the default "
				+ "condition (a present result) could never be met; set until");
	}

	@Test
	void runWhenMethodReturnsAFluxShouldFail() {
		assertFailure(FluxClient.class, "@PollUntil on FluxClient.status() returns a Flux, a stream with no single "
				+ "value to judge; poll a method returning a Mono, a CompletionStage or the value");
	}

	@Test
	void runWhenMethodReturnsAPlainFutureShouldFail() {
		assertFailure(FutureClient.class, "@PollUntil on FutureClient.status() cannot handle its return type "
				+ "java.util.concurrent.Future: a Future cannot tell when it completes without a thread waiting on it; "
				+ "return a CompletionStage");
	}

	@Test
	void runWhenPropertiesHaveUnlimitedAttemptsWithoutTimeoutShouldFailNamingTheProperty() {
		assertPropertyFailure("resilience.polls.endless.max-attempts=-1",
				"resilience.polls.endless: unlimited max-attempts (-1) needs a timeout, or the poll could never end");
	}

	@Test
	void runWhenPropertiesHaveANegativeDelayShouldFailNamingTheProperty() {
		assertPropertyFailure("resilience.polls.export.delay=-5ms",
				"resilience.polls.export.delay must not be negative, but was -5ms");
	}

	@Test
	void runWhenPropertiesHaveAnUnparsableDurationShouldFailNamingTheProperty() {
		assertPropertyFailure("resilience.polls.export.timeout=soon", "resilience.polls.export.timeout");
	}

	private void assertFailure(Class<?> client, String message) {
		assertFailure(this.contextRunner.withBean(client), message);
	}

	private void assertPropertyFailure(String property, String message) {
		assertFailure(this.contextRunner.withPropertyValues(property), message);
	}

	private static void assertFailure(ApplicationContextRunner runner, String message) {
		runner.run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.anySatisfy((failure) -> assertThat(failure).contains(message));
		});
	}

	static class ValidClient {

		@PollUntil(name = "export", until = "#result != null && #result.length() > #id.length()", maxAttempts = -1,
				delay = "5ms", maxDelay = "1s", timeout = "PT2S", multiplier = 3)
		public String status(String id) {
			return id;
		}

		@PollUntil(until = "#result")
		public boolean ready() {
			return true;
		}

		@PollUntil(until = "@validClient != null")
		public void refresh() {
		}

	}

	static class UnparsableUntilClient {

		@PollUntil(until = "#result.status ==")
		public String status(String id) {
			return id;
		}

	}

	static class UnlimitedClient {

		@PollUntil(maxAttempts = -1)
		public String status() {
			return "x";
		}

	}

	static class UnknownNameClient {

		@PollUntil("exports")
		public String status() {
			return "x";
		}

	}

	static class BadDurationClient {

		@PollUntil(timeout = "ten seconds")
		public String status() {
			return "x";
		}

	}

	static class NoAttemptsClient {

		@PollUntil(maxAttempts = 0)
		public String status() {
			return "x";
		}

	}

	static class VoidClient {

		@PollUntil
		public void refresh() {
		}

	}

	static class VoidStageClient {

		@PollUntil
		public CompletableFuture<Void> refresh() {
			return CompletableFuture.completedFuture(null);
		}

	}

	static class VoidMonoClient {

		@PollUntil
		public Mono<Void> refresh() {
			return Mono.empty();
		}

	}

	static class FluxClient {

		@PollUntil
		public Flux<String> status() {
			return Flux.just("x");
		}

	}

	static class FutureClient {

		@PollUntil
		public Future<String> status() {
			return CompletableFuture.completedFuture("x");
		}

	}

}
