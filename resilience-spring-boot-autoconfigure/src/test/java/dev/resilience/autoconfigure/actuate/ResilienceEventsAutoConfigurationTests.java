package dev.resilience.autoconfigure.actuate;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.pool.ConnectionPoolListener.CheckoutOutcome;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ResilienceEventsAutoConfiguration}: the recorder exists when the endpoint is
 * exposed over HTTP, the rate limiters tell it (every capability does in
 * {@link ResilienceEventsWebTests}), and its properties and the name it reserves are
 * checked at startup.
 */
class ResilienceEventsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RetryAutoConfiguration.class, PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class,
				ResilienceEndpointAutoConfiguration.class, ResilienceEventsAutoConfiguration.class));

	@Test
	void runWhenExposedOverHttpShouldHaveEventsToldByTheRateLimiters() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=resilience",
					"resilience.rate-limiters.partner.windows[0].limit=1",
					"resilience.rate-limiters.partner.windows[0].period=1h")
			.run((context) -> {
				assertThat(context).hasSingleBean(ResilienceEvents.class);
				ResilienceEvents events = context.getBean(ResilienceEvents.class);
				RateLimiterRegistry limiters = context.getBean(RateLimiterRegistry.class);
				limiters.get("partner").tryAcquire("alice", 1);
				limiters.get("partner").tryAcquire("alice", 1);
				assertThat(events.recent("partner", ResilienceEvents.Kind.REJECTED).events()).hasSize(1);
				assertThat(events.recent(null, null).bufferSize()).isEqualTo(100);
			});
	}

	@Test
	void runWhenPropertiesSetShouldSizeTheBufferAndIncludeKeysAtTheClockBeansTime() {
		Instant now = Instant.parse("2026-11-25T20:00:00Z");
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=resilience",
					"resilience.events.buffer-size=2", "resilience.events.include-keys=true")
			.withBean(Clock.class, () -> Clock.fixed(now, ZoneOffset.UTC))
			.run((context) -> {
				ResilienceEvents events = context.getBean(ResilienceEvents.class);
				events.onCheckout("a", CheckoutOutcome.TIMEOUT, java.time.Duration.ZERO);
				events.onCheckout("b", CheckoutOutcome.TIMEOUT, java.time.Duration.ZERO);
				events.onCheckout("c", CheckoutOutcome.TIMEOUT, java.time.Duration.ZERO);
				assertThat(events.recent(null, null).events()).extracting(ResilienceEvents.Event::name)
					.containsExactly("c", "b");
				assertThat(events.recent(null, null).events().get(0).time()).isEqualTo(now);
			});
	}

	@Test
	void runWhenBufferSizeIsZeroShouldFailNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=resilience", "resilience.events.buffer-size=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.satisfies((failure) -> assertThat(Failures.messages(failure))
					.contains("resilience.events.buffer-size must be at least 1 but was 0")));
	}

	/** The properties are checked whether or not the events are shown: nothing is silently ignored. */
	@Test
	void runWhenBufferSizeIsZeroAndTheEndpointIsNotExposedShouldStillFailNamingTheProperty() {
		this.contextRunner.withPropertyValues("resilience.events.buffer-size=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.satisfies((failure) -> assertThat(Failures.messages(failure))
					.contains("resilience.events.buffer-size must be at least 1 but was 0")));
	}

	@Test
	void runWhenARateLimiterIsNamedEventsShouldFailNamingIt() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=resilience",
					"resilience.rate-limiters.events.windows[0].limit=1",
					"resilience.rate-limiters.events.windows[0].period=1s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.satisfies((failure) -> assertThat(Failures.messages(failure)).contains(
						"Rate limiter 'events' (resilience.rate-limiters.events) cannot be shown by GET "
								+ "/actuator/resilience/events, which shows the recent events: rename it")));
	}

	@Test
	void runWhenExposedOnlyOverJmxShouldHaveNoEventsAndAllowALimiterNamedEvents() {
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=resilience",
					"resilience.rate-limiters.events.windows[0].limit=1",
					"resilience.rate-limiters.events.windows[0].period=1s")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(ResilienceEndpoint.class)
				.doesNotHaveBean(ResilienceEvents.class));
	}

	@Test
	void runWhenNotExposedShouldHaveNoEvents() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(ResilienceEvents.class));
	}

	@Test
	void runWhenUserDefinesEventsShouldBackOff() {
		ResilienceEvents own = new ResilienceEvents(5, false, Clock.systemUTC());
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=resilience")
			.withBean(ResilienceEvents.class, () -> own)
			.run((context) -> assertThat(context.getBean(ResilienceEvents.class)).isSameAs(own));
	}

}
