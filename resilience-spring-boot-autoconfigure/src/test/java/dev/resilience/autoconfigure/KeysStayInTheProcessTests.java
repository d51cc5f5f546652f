package dev.resilience.autoconfigure;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.Sleeper;
import dev.resilience.autoconfigure.actuate.ResilienceEndpointAutoConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceEvents;
import dev.resilience.autoconfigure.actuate.ResilienceEventsAutoConfiguration;
import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterMetricsAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryMetricsAutoConfiguration;
import dev.resilience.internal.Causes;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Jitter;
import dev.resilience.retry.RetriesExhaustedException;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Rate-limit keys stay in the process (SPEC §7) unless {@code resilience.include-keys} lets them
 * out: issue 36's case, a {@code @Retryable} over {@code @RateLimited(key = "#apiKey")} whose
 * rejection ends up as the {@code resilience.retry} observation's error, which a tracing backend
 * stores with its message, looked for in every channel the starter writes to.
 */
@ExtendWith(OutputCaptureExtension.class)
class KeysStayInTheProcessTests {

	private static final String SECRET = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class, RetryAutoConfiguration.class, PollAutoConfiguration.class,
				ConnectionPoolAutoConfiguration.class, RateLimiterMetricsAutoConfiguration.class,
				RetryMetricsAutoConfiguration.class, ResilienceEndpointAutoConfiguration.class,
				ResilienceEventsAutoConfiguration.class))
		.withBean(SimpleMeterRegistry.class)
		.withUserConfiguration(ObservedConfiguration.class)
		.withBean(TestTicker.class)
		// Waits end at once and the clock stands still: every retry is rejected again.
		.withBean(Sleeper.class, () -> (nanos) -> {
		})
		.withBean(PartnerClient.class)
		.withPropertyValues("management.endpoints.web.exposure.include=resilience",
				"resilience.rate-limiters.tight.windows[0].limit=1",
				"resilience.rate-limiters.tight.windows[0].period=1h");

	@Test
	void aRetriedRejectionLeavesItsKeyNowhere(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			RateLimitExceededException rejected = retriedRejection(context);

			assertThat(rejected.getKey()).isEqualTo(SECRET);
			assertThat(rejected.getDecision().getKey()).isEqualTo(SECRET);
			assertThat(rejected).hasMessage("Rate limiter 'tight' rejected the call; retry after 1h");
			assertThat(described(rejected)).doesNotContain(SECRET);

			RecordingHandler observed = context.getBean(RecordingHandler.class);
			assertThat(observed.names).contains("resilience.retry");
			assertThat(observed.errors).isNotEmpty().allSatisfy((error) -> assertThat(described(error)).doesNotContain(SECRET));
			assertThat(observed.seen).isNotEmpty().allSatisfy((seen) -> assertThat(seen).doesNotContain(SECRET));

			assertThat(context.getBean(MeterRegistry.class).getMeters()).isNotEmpty()
				.allSatisfy((meter) -> assertThat(meter.getId().toString()).doesNotContain(SECRET));

			List<ResilienceEvents.Event> events = context.getBean(ResilienceEvents.class).recent(null, null).events();
			assertThat(events).extracting(ResilienceEvents.Event::kind).contains("rejected", "retried", "retries_exhausted");
			assertThat(events).allSatisfy((event) -> assertThat(event.toString()).doesNotContain(SECRET));

			assertThat(output).doesNotContain(SECRET);
		});
	}

	@Test
	void includeKeysLetsTheKeyIntoTheMessageAndTheEventsButNotTheMetersOrKeyValues() {
		this.contextRunner.withPropertyValues("resilience.include-keys=true").run((context) -> {
			RateLimitExceededException rejected = retriedRejection(context);

			assertThat(rejected).hasMessage("Rate limiter 'tight' rejected the call for key '" + SECRET
					+ "'; retry after 1h");
			RecordingHandler observed = context.getBean(RecordingHandler.class);
			assertThat(observed.errors).isNotEmpty().allSatisfy((error) -> assertThat(error.getMessage()).contains(SECRET));
			assertThat(observed.seen).isNotEmpty().allSatisfy((seen) -> assertThat(seen).doesNotContain(SECRET));
			assertThat(context.getBean(MeterRegistry.class).getMeters()).extracting((meter) -> meter.getId().toString())
				.allSatisfy((id) -> assertThat(id).doesNotContain(SECRET));
			List<ResilienceEvents.Event> events = context.getBean(ResilienceEvents.class).recent(null, null).events();
			assertThat(events).filteredOn((event) -> event.kind().equals("rejected"))
				.isNotEmpty()
				.allSatisfy((event) -> assertThat(event.key()).isEqualTo(SECRET));
			assertThat(events).filteredOn((event) -> event.kind().equals("retries_exhausted"))
				.singleElement()
				.satisfies((event) -> assertThat(event.details().get("error")).asString().contains(SECRET));
		});
	}

	@Test
	void theFormerPropertyStillIncludesKeys() {
		this.contextRunner.withPropertyValues("resilience.events.include-keys=true").run((context) -> {
			assertThat(retriedRejection(context)).hasMessageContaining("for key '" + SECRET + "'");
			assertThat(context.getBean(ResilienceEvents.class).recent(null, ResilienceEvents.Kind.REJECTED).events())
				.isNotEmpty()
				.allSatisfy((event) -> assertThat(event.key()).isEqualTo(SECRET));
		});
	}

	@Test
	void bothPropertiesSetAlikeAreAccepted() {
		this.contextRunner.withPropertyValues("resilience.include-keys=false", "resilience.events.include-keys=false")
			.run((context) -> assertThat(retriedRejection(context)).hasMessageNotContaining(SECRET));
	}

	@Test
	void bothPropertiesSetDifferentlyStopStartupNamingBoth() {
		this.contextRunner.withPropertyValues("resilience.include-keys=false", "resilience.events.include-keys=true")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.satisfies((failure) -> assertThat(Failures.messages(failure)).contains(
						"resilience.include-keys is false but resilience.events.include-keys, its deprecated former "
								+ "name, is true: remove resilience.events.include-keys")));
	}

	/** Admits one call, then returns the rejection of the next, retried twice and rethrown. */
	private static RateLimitExceededException retriedRejection(AssertableApplicationContext context) {
		PartnerClient client = context.getBean(PartnerClient.class);
		assertThat(client.call(SECRET)).isEqualTo("ok");
		RateLimitExceededException rejected = catchThrowableOfType(RateLimitExceededException.class,
				() -> client.call(SECRET));
		assertThat(rejected.getSuppressed()).singleElement()
			.isInstanceOfSatisfying(RetriesExhaustedException.class,
					(exhausted) -> assertThat(exhausted.getAttempts()).hasSize(3));
		return rejected;
	}

	/**
	 * Everything a log or a tracing backend could write of a failure: its stack trace, which holds
	 * each cause's and suppressed exception's description, and each one's message.
	 */
	private static String described(Throwable failure) {
		StringWriter text = new StringWriter();
		failure.printStackTrace(new PrintWriter(text));
		List<String> parts = new ArrayList<>(List.of(text.toString()));
		for (Throwable cause : Causes.chain(failure)) {
			parts.add(String.valueOf(cause.getMessage()));
			for (Throwable suppressed : cause.getSuppressed()) {
				parts.add(String.valueOf(suppressed.getMessage()));
				parts.add(suppressed.toString());
			}
		}
		return String.join("\n", parts);
	}

	/** An observation registry with a handler that records what it is told. */
	@Configuration(proxyBeanMethods = false)
	static class ObservedConfiguration {

		@Bean
		RecordingHandler recordingHandler() {
			return new RecordingHandler();
		}

		@Bean
		ObservationRegistry observationRegistry(RecordingHandler handler) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(handler);
			return registry;
		}

	}

	/**
	 * What a tracing bridge reads of each observation: names, contextual names, key values, events
	 * and the error.
	 */
	static class RecordingHandler implements ObservationHandler<Observation.Context> {

		final List<String> names = new CopyOnWriteArrayList<>();

		final List<String> seen = new CopyOnWriteArrayList<>();

		final List<Throwable> errors = new CopyOnWriteArrayList<>();

		@Override
		public void onError(Observation.Context context) {
			this.errors.add(context.getError());
		}

		@Override
		public void onEvent(Observation.Event event, Observation.Context context) {
			this.seen.add(event.getName() + " " + event.getContextualName());
		}

		@Override
		public void onStop(Observation.Context context) {
			this.names.add(context.getName());
			this.seen.add(context.getName() + " " + context.getContextualName());
			context.getAllKeyValues().forEach((keyValue) -> this.seen.add(keyValue.getKey() + "=" + keyValue.getValue()));
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	/** A partner's client whose calls are limited per API key and retried when rejected. */
	static class PartnerClient {

		@Retryable(maxRetries = 2, delay = "1ms", maxDelay = "2h", jitter = Jitter.NONE)
		@RateLimited(name = "tight", key = "#apiKey")
		public String call(String apiKey) {
			return "ok";
		}

	}

}
