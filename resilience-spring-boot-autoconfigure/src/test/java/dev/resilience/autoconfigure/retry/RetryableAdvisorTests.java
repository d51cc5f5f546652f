package dev.resilience.autoconfigure.retry;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
import org.springframework.resilience.annotation.EnableResilientMethods;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestSleeper;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Jitter;
import dev.resilience.retry.RetriesExhaustedException;
import dev.resilience.retry.RetryAttempt;
import dev.resilience.retry.RetryCallOutcome;
import dev.resilience.retry.RetryListener;
import dev.resilience.retry.RetryRegistry;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link RetryableAdvisor}, through real proxied beans and a manual clock.
 */
class RetryableAdvisorTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class,
				RetryMetricsAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class, ServiceConfiguration.class)
		.withBean(SimpleMeterRegistry.class)
		.withPropertyValues("resilience.retries.partner.max-retries=1", "resilience.retries.partner.delay=1s",
				"resilience.retries.partner.jitter=none", "resilience.retries.partner.retry-on=java.io.IOException",
				"resilience.rate-limiters.quota.token-bucket.capacity=1",
				"resilience.rate-limiters.quota.token-bucket.refill-tokens=1",
				"resilience.rate-limiters.quota.token-bucket.refill-period=2s", "test.retry.delay=250ms");

	@Test
	void runShouldRetryUntilSuccessWaitingTheBackoff() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThat(AopUtils.isAopProxy(client)).isTrue();
			assertThat(client.flaky(2)).isEqualTo("ok after 3");
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(ms(100), ms(200));
		});
	}

	@Test
	void runShouldRethrowTheLastExceptionWithTheHistoryWhenExhausted() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> client.flaky(10))
				.withMessage("down 4")
				.satisfies((ex) -> {
					RetriesExhaustedException exhausted = RetriesExhaustedException.of(ex);
					assertThat(exhausted.getMessage()).isEqualTo("Tried 4 times over 700ms");
					assertThat(exhausted.getAttempts()).extracting(RetryAttempt::delayBefore)
						.containsExactly(Duration.ZERO, ms(100), ms(200), ms(400));
				});
			assertThat(client.calls().get()).isEqualTo(4);
		});
	}

	@Test
	void runShouldTakeTheNamedPolicysSettings() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatExceptionOfType(IOException.class).isThrownBy(client::named);
			assertThat(client.calls().get()).isEqualTo(2);
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(Duration.ofSeconds(1));
			client.calls().set(0);
			// retry-on is IOException only
			assertThatIllegalStateException().isThrownBy(client::namedUnchecked);
			assertThat(client.calls().get()).isEqualTo(1);
		});
	}

	@Test
	void runShouldLayAttributesSetOnTheAnnotationOverTheNamedPolicy() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatExceptionOfType(IOException.class).isThrownBy(client::overridden);
			assertThat(client.calls().get()).isEqualTo(5);
			// The policy's jitter (none) and exponential backoff stay.
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(ms(250), ms(500), ms(1000),
					ms(2000));
		});
	}

	@Test
	void runShouldRetryOnlyWhenRetryIfHolds() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> client.conditional("fatal", "go"));
			assertThat(client.calls().getAndSet(0)).isEqualTo(1);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> client.conditional("busy", "stop"));
			assertThat(client.calls().getAndSet(0)).isEqualTo(1);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> client.conditional("busy", "go"));
			assertThat(client.calls().get()).isEqualTo(4);
		});
	}

	@Test
	void runShouldRetryResultsWhileRetryIfResultHolds() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThat(client.until(3)).isEqualTo("done");
			assertThat(client.calls().getAndSet(0)).isEqualTo(3);
			assertThatExceptionOfType(RetriesExhaustedException.class).isThrownBy(() -> client.until(99))
				.satisfies((ex) -> assertThat(ex.getLastResult()).isEqualTo("pending"))
				.withMessage("Tried 6 times over 3100ms");
		});
	}

	@Test
	void runShouldMatchRetryOnAndNoRetryOnWithCauses() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatExceptionOfType(FileNotFoundException.class)
				.isThrownBy(() -> client.typed(new FileNotFoundException()));
			assertThat(client.calls().getAndSet(0)).isEqualTo(1);
			assertThatIllegalStateException().isThrownBy(() -> client.typed(new IllegalStateException()));
			assertThat(client.calls().getAndSet(0)).isEqualTo(1);
			assertThatIllegalStateException().isThrownBy(() -> client.typed(new IllegalStateException(new IOException())));
			assertThat(client.calls().getAndSet(0)).isEqualTo(3);
		});
	}

	@Test
	void runShouldNeverRetryErrors() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatExceptionOfType(StackOverflowError.class).isThrownBy(() -> client.typed(new StackOverflowError()));
			assertThat(client.calls().get()).isEqualTo(1);
		});
	}

	@Test
	void runShouldCallTheFallbackWhenRetryingEndsInFailure() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThat(client.withFallback("42")).isEqualTo("cached 42 after down 42, 1 suppressed");
			assertThat(client.calls().getAndSet(0)).isEqualTo(2);
			assertThatIllegalStateException().isThrownBy(() -> client.fallbackNotTaking("42")).withMessage("not io");
			assertThat(client.calls().get()).isEqualTo(2);
		});
	}

	@Test
	void runShouldGiveTheFallbackTheCallsFailureWhenRetryIfThrows() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThat(client.brokenCondition("7")).isEqualTo("cached 7 after down 7, 1 suppressed");
			assertThat(client.calls().get()).isEqualTo(1);
		});
	}

	@Test
	void runShouldCallTheFallbackOverloadMostSpecificForTheFailure() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThat(client.overloaded(new FileNotFoundException("gone"))).isEqualTo("file gone");
			assertThat(client.overloaded(new IOException("down"))).isEqualTo("io down");
			assertThat(client.overloaded(new IllegalStateException("odd"))).isEqualTo("any odd");
		});
	}

	@Test
	void runShouldRethrowWhatTheFallbackThrows() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatIllegalStateException().isThrownBy(() -> client.failingFallback(7)).withMessage("fallback 7 failed");
		});
	}

	@Test
	void runShouldAskTheRateLimiterAgainOnEveryRetryAndWaitItsRetryAfter() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			// Attempt 1 takes the only token and fails; attempt 2 is rejected by the limiter, whose
			// token comes back 1.9s later: that, not the backoff's 200ms, is the next delay.
			assertThat(client.limited()).isEqualTo("ok after 2");
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(ms(100), ms(1900));
			assertThat(context.getBean(RecordingListener.class).outcomes).last()
				.isEqualTo("PartnerClient.limited successful_with_retry: [FAILED, FAILED, RETURNED]");
			assertThat(context.getBean(RecordingListener.class).rejections).hasValue(1);
		});
	}

	@Test
	void runShouldRetryInsideTheRateLimiterWhenTheOrderSaysSo() {
		this.contextRunner.withPropertyValues("resilience.aspect-order.retry=2147483647").run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			// The limiter admits the call once; the retry inside it never asks the limiter again.
			assertThat(client.limited()).isEqualTo("ok after 2");
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(ms(100));
			assertThat(context.getBean(RecordingListener.class).rejections).hasValue(0);
		});
	}

	@Test
	void runShouldThrowAtOnceWhenThePolicysBudgetIsSpent() {
		this.contextRunner
			.withPropertyValues("resilience.retries.partner.budget.ratio=0",
					"resilience.retries.partner.budget.min-retries-per-second=0")
			.run((context) -> {
				PartnerClient client = context.getBean(PartnerClient.class);
				assertThatExceptionOfType(IOException.class).isThrownBy(client::named)
					.satisfies((ex) -> assertThat(RetriesExhaustedException.of(ex).getMessage())
						.isEqualTo("Tried 1 time over 0ms; stopped because the retry budget is exhausted"));
				assertThat(client.calls().get()).isEqualTo(1);
				assertThat(context.getBean(MeterRegistry.class)
					.get("resilience.retry.calls")
					.tag("name", "partner")
					.tag("kind", "failed_budget_exhausted")
					.counter()
					.count()).isEqualTo(1);
			});
	}

	@Test
	void runShouldTellListenersAndMetersOfEveryAttempt() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			client.flaky(1);
			assertThat(context.getBean(RecordingListener.class).outcomes)
				.containsExactly("PartnerClient.flaky successful_with_retry: [FAILED, RETURNED]");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("resilience.retry.attempts").tag("name", "PartnerClient.flaky").counter().count())
				.isEqualTo(2);
			assertThat(meters.get("resilience.retry.calls")
				.tag("name", "PartnerClient.flaky")
				.tag("kind", "successful_with_retry")
				.counter()
				.count()).isEqualTo(1);
			assertThatExceptionOfType(IOException.class).isThrownBy(client::named);
			assertThat(meters.get("resilience.retry.calls").tag("name", "partner").tag("kind", "failed_with_retry").counter().count())
				.isEqualTo(1);
		});
	}

	@Test
	void runShouldResolvePlaceholdersInDurations() {
		this.contextRunner.run((context) -> {
			PartnerClient client = context.getBean(PartnerClient.class);
			assertThatExceptionOfType(IOException.class).isThrownBy(client::placeholder);
			assertThat(context.getBean(TestSleeper.class).getSleeps()).containsExactly(ms(250), ms(250));
		});
	}

	@Test
	void runShouldListThePoliciesInTheRegistry() {
		this.contextRunner.run((context) -> assertThat(context.getBean(RetryRegistry.class).getNames())
			.containsExactly("partner"));
	}

	@Test
	void runShouldLeaveSpringFrameworksOwnRetryableToSpring() {
		this.contextRunner.run((context) -> {
			SpringRetried bean = context.getBean(SpringRetried.class);
			assertThatIllegalStateException().isThrownBy(bean::call);
			assertThat(bean.calls().get()).isEqualTo(1);
		});
		this.contextRunner.withUserConfiguration(SpringResilienceConfiguration.class).run((context) -> {
			SpringRetried spring = context.getBean(SpringRetried.class);
			assertThatIllegalStateException().isThrownBy(spring::call);
			assertThat(spring.calls().get()).isEqualTo(3);
			PartnerClient ours = context.getBean(PartnerClient.class);
			assertThatExceptionOfType(IOException.class).isThrownBy(() -> ours.flaky(10));
			assertThat(ours.calls().get()).isEqualTo(4);
		});
	}

	private static Duration ms(long millis) {
		return Duration.ofMillis(millis);
	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceConfiguration {

		@Bean
		PartnerClient partnerClient() {
			return new PartnerClient();
		}

		@Bean
		SpringRetried springRetried() {
			return new SpringRetried();
		}

		@Bean
		RecordingListener recordingListener() {
			return new RecordingListener();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class SpringResilienceConfiguration {

	}

	static class RecordingListener implements RetryListener {

		final List<String> outcomes = new CopyOnWriteArrayList<>();

		final AtomicInteger rejections = new AtomicInteger();

		@Override
		public void onAttempt(String name, RetryAttempt attempt) {
			if (attempt.failure() instanceof RateLimitExceededException) {
				this.rejections.incrementAndGet();
			}
		}

		@Override
		public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
			this.outcomes.add(name + " " + outcome.tag() + ": " + attempts.stream().map(RetryAttempt::outcome).toList());
		}

	}

	static class PartnerClient {

		final AtomicInteger calls = new AtomicInteger();

		AtomicInteger calls() {
			return this.calls;
		}

		@Retryable(jitter = Jitter.NONE)
		public String flaky(int failures) throws IOException {
			int call = this.calls.incrementAndGet();
			if (call <= failures) {
				throw new IOException("down " + call);
			}
			return "ok after " + call;
		}

		@Retryable(name = "partner")
		public String named() throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("down");
		}

		@Retryable("partner")
		public String namedUnchecked() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("down");
		}

		@Retryable(name = "partner", maxRetries = 4, delay = "250ms")
		public String overridden() throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("down");
		}

		@Retryable(jitter = Jitter.NONE, retryIf = "#exception.message != 'fatal' and #mode == 'go'")
		public String conditional(String message, String mode) throws IOException {
			this.calls.incrementAndGet();
			throw new IOException(message);
		}

		@Retryable(jitter = Jitter.NONE, maxRetries = 5, retryIfResult = "#result.startsWith('pending') and #ready > 0")
		public String until(int ready) {
			return (this.calls.incrementAndGet() < ready) ? "pending" : "done";
		}

		@Retryable(jitter = Jitter.NONE, retryOn = IOException.class, noRetryOn = FileNotFoundException.class,
				maxRetries = 2)
		public void typed(Throwable failure) throws Throwable {
			this.calls.incrementAndGet();
			throw failure;
		}

		@Retryable(jitter = Jitter.NONE, maxRetries = 1, fallbackMethod = "cached")
		public String withFallback(String id) throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("down " + id);
		}

		@Retryable(jitter = Jitter.NONE, maxRetries = 1, fallbackMethod = "cached")
		public String fallbackNotTaking(String id) {
			this.calls.incrementAndGet();
			throw new IllegalStateException("not io");
		}

		@Retryable(jitter = Jitter.NONE, maxRetries = 1, retryIf = "#exception.message.length() / 0 > 1",
				fallbackMethod = "cached")
		public String brokenCondition(String id) throws IOException {
			this.calls.incrementAndGet();
			throw new IOException("down " + id);
		}

		@Retryable(maxRetries = 0, fallbackMethod = "recover")
		public String overloaded(Exception failure) throws Exception {
			throw failure;
		}

		String recover(Exception failure, Exception ex) {
			return "any " + ex.getMessage();
		}

		String recover(Exception failure, FileNotFoundException ex) {
			return "file " + ex.getMessage();
		}

		String recover(Exception failure, IOException ex) {
			return "io " + ex.getMessage();
		}

		String cached(String id, IOException failure) {
			return "cached " + id + " after " + failure.getMessage() + ", " + failure.getSuppressed().length
					+ " suppressed";
		}

		@Retryable(maxRetries = 0, fallbackMethod = "failing")
		public String failingFallback(long id) {
			throw new IllegalStateException("down");
		}

		private String failing(long id, RuntimeException failure) {
			throw new IllegalStateException("fallback " + id + " failed");
		}

		@Retryable(jitter = Jitter.NONE, delay = "${test.retry.delay}", maxRetries = 2, backoff = dev.resilience.retry.Backoff.FIXED)
		public void placeholder() throws IOException {
			throw new IOException("down");
		}

		@Retryable(jitter = Jitter.NONE)
		@RateLimited("quota")
		public String limited() throws IOException {
			int call = this.calls.incrementAndGet();
			if (call == 1) {
				throw new IOException("down");
			}
			return "ok after " + call;
		}

	}

	static class SpringRetried {

		final AtomicInteger calls = new AtomicInteger();

		AtomicInteger calls() {
			return this.calls;
		}

		@org.springframework.resilience.annotation.Retryable(maxRetries = 2, delay = 0)
		public void call() {
			this.calls.incrementAndGet();
			throw new IllegalStateException("down");
		}

	}

}
