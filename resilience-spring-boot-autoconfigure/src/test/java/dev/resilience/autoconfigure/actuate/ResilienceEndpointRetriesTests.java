package dev.resilience.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.RetryBudgetDescriptor;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.RetryPolicyDescriptor;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the {@code resilience} endpoint lists the retry policies with their settings and budgets.
 */
class ResilienceEndpointRetriesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RetryAutoConfiguration.class, ResilienceEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=resilience");

	@Test
	void runShouldListEveryRetryPolicy() {
		this.contextRunner
			.withPropertyValues("resilience.retries.partner.max-retries=5", "resilience.retries.partner.backoff=linear",
					"resilience.retries.partner.delay=50ms", "resilience.retries.partner.jitter=equal",
					"resilience.retries.partner.max-duration=20s",
					"resilience.retries.partner.retry-on=java.io.IOException",
					"resilience.retries.partner.no-retry-on=java.io.FileNotFoundException",
					"resilience.retries.partner.budget.ratio=0.2", "resilience.retries.billing.max-retries=1")
			.run((context) -> {
				var retries = context.getBean(ResilienceEndpoint.class).resilience().retries();
				assertThat(retries).containsOnlyKeys("partner", "billing");
				assertThat(retries.get("partner")).isEqualTo(new RetryPolicyDescriptor(5, "linear", "50ms",
						2.0, "10s", "equal", "20s", List.of("java.io.IOException"),
						List.of("java.io.FileNotFoundException"),
						new RetryBudgetDescriptor(0.2, "10s", 10, 100)));
				assertThat(retries.get("billing").budget()).isNull();
				assertThat(retries.get("billing").retryOn()).containsExactly("java.lang.Exception");
			});
	}

	@Test
	void endpointWithoutRetriesListsNone() {
		assertThat(new ResilienceEndpoint(StoreRateLimiterRegistry.builder().build()).resilience().retries()).isEmpty();
	}

}
