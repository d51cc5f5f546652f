package dev.resilience.autoconfigure.actuate;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.PollDescriptor;
import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that {@link ResilienceEndpoint} lists the named poll settings.
 */
class ResilienceEndpointPollTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				PollAutoConfiguration.class, ResilienceEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=resilience");

	@Test
	void resilienceShouldListPollSettings() {
		this.contextRunner
			.withPropertyValues("resilience.polls.export.max-attempts=-1", "resilience.polls.export.timeout=30s",
					"resilience.polls.export.backoff=exponential", "resilience.polls.export.delay=100ms",
					"resilience.polls.export.max-delay=2s", "resilience.polls.export.ignore-exceptions=true",
					"resilience.polls.report.backoff=exponential", "resilience.polls.report.multiplier=3")
			.run((context) -> {
				ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
				assertThat(endpoint.resilience().polls()).containsOnlyKeys("export", "report");
				assertThat(endpoint.resilience().polls().get("export")).isEqualTo(new PollDescriptor(-1,
						"100ms", "exponential", 2.0, "2s", "30s", true));
				assertThat(endpoint.resilience().polls().get("report")).isEqualTo(new PollDescriptor(5,
						"10ms", "exponential", 3.0, "10s", null, false));
			});
	}

	@Test
	void resilienceWithoutPollingShouldListNoPollSettings() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
					ResilienceEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=resilience")
			.run((context) -> assertThat(context.getBean(ResilienceEndpoint.class).resilience().polls()).isEmpty());
	}

}
