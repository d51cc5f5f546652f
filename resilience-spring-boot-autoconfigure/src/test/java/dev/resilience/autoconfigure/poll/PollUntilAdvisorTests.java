package dev.resilience.autoconfigure.poll;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestSleeper;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.poll.PollExhaustedException;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.poll.PollUntil;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.retry.Backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Tests for {@link PollUntilAdvisor}, through real proxied beans and a manual clock.
 */
class PollUntilAdvisorTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class, PollMetricsAutoConfiguration.class,
				PollAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class, ServiceConfiguration.class)
		.withPropertyValues("resilience.polls.export.max-attempts=-1", "resilience.polls.export.timeout=1s",
				"resilience.polls.export.backoff=fixed", "resilience.polls.export.delay=100ms",
				"resilience.rate-limiters.partner-api.token-bucket.refill-tokens=10",
				"resilience.rate-limiters.partner-api.token-bucket.refill-period=1h", "test.poll.timeout=45ms");

	@Test
	void runShouldProxyAnnotatedBeansAndPollUntilTheResultIsPresent() {
		this.contextRunner.run((context) -> {
			ExportClient client = context.getBean(ExportClient.class);
			assertThat(AopUtils.isAopProxy(client)).isTrue();
			client.readyAfter(3);

			assertThat(client.present()).isEqualTo("export-3");
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(ms(10), ms(20));
		});
	}

	@Test
	void untilIsEvaluatedOverTheResultAndTheArguments() {
		this.contextRunner.run((context) -> {
			ExportClient client = context.getBean(ExportClient.class);
			client.readyAfter(2);

			assertThat(client.status("e-1").status()).isEqualTo("DONE");
			assertThat(client.statusMatching("e-1", "DONE").status()).isEqualTo("DONE");
		});
	}

	@Test
	void aConditionNeverMetThrowsTheHistoryWithSpecsMessage() {
		this.contextRunner.run((context) -> {
			ExportClient client = context.getBean(ExportClient.class);
			client.readyAfter(100);

			PollExhaustedException exhausted = catchThrowableOfType(PollExhaustedException.class, client::present);

			assertThat(exhausted).hasMessage("Tried 5 times over 100ms, but condition was never met");
			assertThat(exhausted.getHistory().attempts()).extracting((attempt) -> attempt.value())
				.containsExactly(null, null, null, null, null);
			assertThat(client.calls()).isEqualTo(5);
		});
	}

	@Test
	void namedSettingsApplyAndAnnotationAttributesOverrideThem() {
		this.contextRunner.run((context) -> {
			ExportClient client = context.getBean(ExportClient.class);
			client.readyAfter(100);
			TestSleeper sleeper = context.getBean(TestSleeper.class);

			assertThat(catchThrowableOfType(PollExhaustedException.class, client::named))
				.hasMessage("Tried 11 times over 1s, but condition was never met within the timeout of 1s");
			assertThat(sleeper.getSleeps()).hasSize(10).containsOnly(ms(100));

			// The named backoff (FIXED) stays: only attributes set to other than their defaults override.
			assertThat(catchThrowableOfType(PollExhaustedException.class, client::namedWithOwnTimeout))
				.hasMessage("Tried 5 times over 40ms, but condition was never met within the timeout of 45ms");
			assertThat(sleeper.getSleeps().subList(10, 14)).containsExactly(ms(10), ms(10), ms(10), ms(10));
		});
	}

	@Test
	void aMethodsExceptionLeavesAsItselfCheckedOnesIncluded() {
		this.contextRunner.run((context) -> {
			ExportClient client = context.getBean(ExportClient.class);
			IOException failure = new IOException("partner down");
			client.failWith(failure);

			assertThatExceptionOfType(IOException.class).isThrownBy(client::failing).isSameAs(failure);
			assertThat(client.calls()).isEqualTo(1);
		});
	}

	@Test
	void ignoredExceptionsCountAsUnmetAttempts() {
		this.contextRunner.run((context) -> {
			ExportClient client = context.getBean(ExportClient.class);
			IOException failure = new IOException("partner down");
			client.failWith(failure);

			PollExhaustedException exhausted = catchThrowableOfType(PollExhaustedException.class, client::failingIgnored);

			assertThat(exhausted).hasMessage("Tried 3 times over 30ms, but condition was never met").hasCause(failure);
			assertThat(exhausted.getHistory().attempts()).allSatisfy((attempt) -> assertThat(attempt.exception()).isSameAs(failure));
		});
	}

	@Test
	void everyAttemptAsksTheRateLimiterInside() {
		this.contextRunner.run((context) -> {
			ExportClient client = context.getBean(ExportClient.class);
			client.readyAfter(4);

			assertThat(client.limited()).isEqualTo("export-4");

			assertThat(context.getBean(RateLimiterRegistry.class).get("partner-api").inspect("").getRemaining()).isEqualTo(6);
			client.readyAfter(100);
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::limited);
			assertThat(client.calls()).isEqualTo(6);
		});
	}

	@Test
	void pollsAreCountedWithTheirAttempts() {
		this.contextRunner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			ExportClient client = context.getBean(ExportClient.class);
			client.readyAfter(3);
			client.present();
			client.readyAfter(100);
			catchThrowableOfType(PollExhaustedException.class, client::present);

			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("resilience.poll.calls").tag("name", "ExportClient.present").tag("outcome", "fulfilled")
				.counter().count()).isEqualTo(1);
			assertThat(meters.get("resilience.poll.calls").tag("name", "ExportClient.present").tag("outcome", "exhausted")
				.counter().count()).isEqualTo(1);
			assertThat(meters.get("resilience.poll.attempts").tag("name", "ExportClient.present").summary().totalAmount())
				.isEqualTo(8);
			client.readyAfter(1);
			client.named();
			assertThat(meters.get("resilience.poll.calls").tag("name", "export").tag("outcome", "fulfilled").counter().count())
				.isEqualTo(1);
		});
	}

	@Test
	void anUnnamedPollIsCountedUnderTheBeansClassEvenForAnInheritedMethod() {
		this.contextRunner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(NightlyExportClient.class, NightlyExportClient::new)
			.run((context) -> {
				NightlyExportClient client = context.getBean(NightlyExportClient.class);
				client.readyAfter(1);
				client.present();
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("resilience.poll.calls").tag("name", "NightlyExportClient.present").counter().count())
					.isEqualTo(1);
				assertThat(meters.find("resilience.poll.calls").tag("name", "ExportClient.present").counter()).isNull();
			});
	}

	@Test
	void theRegistryHoldsTheNamedSettings() {
		this.contextRunner.run((context) -> {
			PollSettingsRegistry registry = context.getBean(PollSettingsRegistry.class);
			assertThat(registry.getNames()).containsExactly("export");
			assertThat(registry.get("export").timeout()).isEqualTo(Duration.ofSeconds(1));
			assertThat(registry.get("export").backoffPolicy().backoff()).isEqualTo(Backoff.FIXED);
			assertThat(context.getBean(PollUntilAdvisor.class).getOrder()).isEqualTo(Integer.MAX_VALUE - 3);
		});
	}

	@Test
	void theAdvisorsOrderIsAProperty() {
		this.contextRunner.withPropertyValues("resilience.aspect-order.poll=7")
			.run((context) -> assertThat(context.getBean(PollUntilAdvisor.class).getOrder()).isEqualTo(7));
	}

	private static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		ExportClient exportClient() {
			return new ExportClient();
		}

	}

	/**
	 * An export's status.
	 *
	 * @param id the export
	 * @param status {@code PENDING} or {@code DONE}
	 */
	record Export(String id, String status) {
	}

	/** Inherits its polled methods. */
	static class NightlyExportClient extends ExportClient {

	}

	static class ExportClient {

		private final AtomicInteger calls = new AtomicInteger();

		private volatile int readyAt;

		private volatile Exception failure = new IOException("unset");

		void readyAfter(int attempts) {
			this.calls.set(0);
			this.readyAt = attempts;
		}

		void failWith(Exception failure) {
			this.calls.set(0);
			this.failure = failure;
		}

		int calls() {
			return this.calls.get();
		}

		private String next() {
			int call = this.calls.incrementAndGet();
			return (call >= this.readyAt) ? "export-" + call : null;
		}

		@PollUntil
		public String present() {
			return next();
		}

		@PollUntil(until = "#result.status == 'DONE'")
		public Export status(String id) {
			return new Export(id, (next() != null) ? "DONE" : "PENDING");
		}

		@PollUntil(until = "#result.status() == #expected")
		public Export statusMatching(String id, String expected) {
			return new Export(id, (next() != null) ? "DONE" : "PENDING");
		}

		@PollUntil("export")
		public String named() {
			return next();
		}

		@PollUntil(name = "export", delay = "10ms", timeout = "${test.poll.timeout}")
		public String namedWithOwnTimeout() {
			return next();
		}

		@PollUntil
		public String failing() throws Exception {
			this.calls.incrementAndGet();
			throw this.failure;
		}

		@PollUntil(maxAttempts = 3, ignoreExceptions = true)
		public String failingIgnored() throws Exception {
			this.calls.incrementAndGet();
			throw this.failure;
		}

		@PollUntil(maxAttempts = 10)
		@RateLimited("partner-api")
		public String limited() {
			return next();
		}

	}

}
