package dev.resilience.autoconfigure.ratelimit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.Throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Tests for {@link RateLimiterMetrics}: the meters recorded for calls through the aspect.
 */
class RateLimiterMetricsTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, ResilienceAutoConfiguration.class,
				RateLimiterAutoConfiguration.class, RateLimiterMetricsAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class, MeteredConfiguration.class)
		.withPropertyValues("resilience.rate-limiters.metered.windows[0].limit=2",
				"resilience.rate-limiters.metered.windows[0].period=5s",
				"resilience.rate-limiters.other.windows[0].limit=1", "resilience.rate-limiters.other.windows[0].period=5s");

	@Test
	void callsShouldBeCountedByOutcomeAndWaitsTimed() {
		this.contextRunner.run((context) -> {
			MeteredClient client = context.getBean(MeteredClient.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			client.call();
			client.call();
			context.getBean(TestTicker.class).advance(Duration.ofMillis(1500));
			// The window admits again 3.5 s from now; the patient call waits for that slot.
			client.patientCall();
			// The window now holds the waited call only: one more fits, the next is rejected.
			client.call();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::call);
			assertThat(count(meters, "metered", "permitted")).isEqualTo(2.0 + 1.0);
			assertThat(count(meters, "metered", "waited")).isEqualTo(1.0);
			assertThat(count(meters, "metered", "rejected")).isEqualTo(1.0);
			Timer wait = meters.get(RateLimiterMetrics.WAIT).tags("name", "metered").timer();
			assertThat(wait.count()).isEqualTo(4);
			assertThat(wait.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(Duration.ofMillis(3500).toNanos());
			assertThat(wait.max(TimeUnit.NANOSECONDS)).isEqualTo(Duration.ofMillis(3500).toNanos());
		});
	}

	@Test
	void metersShouldCarryNameOutcomeAndStoreTags() {
		this.contextRunner.run((context) -> {
			MeteredClient client = context.getBean(MeteredClient.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			client.other();
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::other);
			assertThat(meters.find(RateLimiterMetrics.CALLS).tag("name", "other").counters()).hasSize(3)
				.allSatisfy((counter) -> assertThat(counter.getId().getTags()).hasSize(3)
					.contains(Tag.of("name", "other"), Tag.of("store", "memory")));
			assertThat(count(meters, "other", "permitted")).isEqualTo(1.0);
			assertThat(count(meters, "other", "waited")).isZero();
			assertThat(count(meters, "other", "rejected")).isEqualTo(1.0);
			assertThat(meters.get(RateLimiterMetrics.WAIT).tags("name", "other").timer().getId().getTags())
				.containsExactly(Tag.of("name", "other"));
			assertThat(meters.find(RateLimiterMetrics.CALLS).tag("name", "metered").meters()).isEmpty();
			assertThat(meters.get(RateLimiterMetrics.CALLS).meters()).extracting(Meter::getId)
				.allSatisfy((id) -> assertThat(id.getType()).isEqualTo(Meter.Type.COUNTER));
		});
	}

	@Test
	void pausesShouldBeCountedByCauseWithoutTheKey() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.other.pause-on-throttle.enabled=true")
			.run((context) -> {
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("other");
				limiter.pause("alice", Duration.ofSeconds(2));
				limiter.pause("alice", Throttle.retryAfter(Duration.ofSeconds(30)));
				limiter.pause("bob", Throttle.retryAfter(Duration.ofSeconds(1)));
				limiter.pause("carol", Throttle.rateLimitField(Duration.ofSeconds(5)));
				assertThat(pauses(meters, "other", "manual")).isEqualTo(1.0);
				assertThat(pauses(meters, "other", "retry-after")).isEqualTo(2.0);
				assertThat(pauses(meters, "other", "ratelimit-field")).isEqualTo(1.0);
				assertThat(pauses(meters, "other", "default")).isZero();
				assertThat(meters.get(RateLimiterMetrics.PAUSES).counters()).hasSize(4)
					.allSatisfy((counter) -> assertThat(counter.getId().getTags()).hasSize(2)
						.contains(Tag.of("name", "other")));
				assertThat(meters.getMeters()).allSatisfy((meter) -> assertThat(meter.getId().getTags())
					.extracting(Tag::getValue)
					.doesNotContain("alice", "bob", "carol"));
			});
	}

	/** A throttled answer to an annotated call is counted by where its pause came from. */
	@Test
	void throttledCallsShouldCountTheirPausesByCause() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.other.pause-on-throttle.enabled=true")
			.run((context) -> {
				MeteredClient client = context.getBean(MeteredClient.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				HttpHeaders retryAfter = new HttpHeaders();
				retryAfter.add(HttpHeaders.RETRY_AFTER, "30");
				HttpClientErrorException tooManyRequests = HttpClientErrorException.create(HttpStatus.TOO_MANY_REQUESTS,
						"Too Many Requests", retryAfter, new byte[0], StandardCharsets.UTF_8);
				HttpServerErrorException unavailable = HttpServerErrorException.create(HttpStatus.SERVICE_UNAVAILABLE,
						"Service Unavailable", new HttpHeaders(), new byte[0], StandardCharsets.UTF_8);
				assertThatExceptionOfType(HttpClientErrorException.class)
					.isThrownBy(() -> client.throttled("alice", tooManyRequests));
				assertThatExceptionOfType(HttpServerErrorException.class)
					.isThrownBy(() -> client.throttled("bob", unavailable));
				assertThat(pauses(meters, "other", "retry-after")).isEqualTo(1.0);
				assertThat(pauses(meters, "other", "default")).isEqualTo(1.0);
				assertThatExceptionOfType(RateLimitExceededException.class)
					.isThrownBy(() -> client.throttled("alice", tooManyRequests));
				assertThat(count(meters, "other", "rejected")).isEqualTo(1.0);
				assertThat(pauses(meters, "other", "retry-after")).isEqualTo(1.0);
			});
	}

	/**
	 * A limiter that pauses has its pause counters, at zero, from its first decision, so that
	 * Prometheus sees the first pause as an increase; a limiter that does not pause has none.
	 */
	@Test
	void pauseCountersShouldExistFromTheFirstDecisionOfALimiterThatPauses() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.other.pause-on-throttle.enabled=true")
			.run((context) -> {
				MeteredClient client = context.getBean(MeteredClient.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				client.other();
				client.call();
				assertThat(meters.find(RateLimiterMetrics.PAUSES).tag("name", "other").counters())
					.extracting((counter) -> counter.getId().getTag("cause"), Counter::count)
					.containsExactlyInAnyOrder(tuple("retry-after", 0.0), tuple("ratelimit-field", 0.0),
							tuple("default", 0.0), tuple("manual", 0.0));
				assertThat(meters.find(RateLimiterMetrics.PAUSES).tag("name", "metered").counters()).isEmpty();
			});
	}

	private static double pauses(MeterRegistry meters, String name, String cause) {
		return meters.get(RateLimiterMetrics.PAUSES).tags("name", name, "cause", cause).counter().count();
	}

	private static double count(MeterRegistry meters, String name, String outcome) {
		return meters.get(RateLimiterMetrics.CALLS)
			.tags("name", name, "outcome", outcome, "store", "memory")
			.counter()
			.count();
	}

	@Configuration(proxyBeanMethods = false)
	static class MeteredConfiguration {

		@Bean
		SimpleMeterRegistry simpleMeterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		MeteredClient meteredClient() {
			return new MeteredClient();
		}

	}

	public static class MeteredClient {

		@RateLimited("metered")
		public void call() {
		}

		@RateLimited(name = "metered", maxWait = "10s")
		public void patientCall() {
		}

		@RateLimited("other")
		public void other() {
		}

		@RateLimited(name = "other", key = "#key")
		public void throttled(String key, RuntimeException answer) {
			throw answer;
		}

	}

}
