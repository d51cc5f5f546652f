package dev.resilience.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.actuate.ResilienceEventsAutoConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceEventsProperties;
import dev.resilience.autoconfigure.poll.PollAutoConfiguration;
import dev.resilience.autoconfigure.poll.PollsProperties;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimitingProperties;
import dev.resilience.autoconfigure.retry.RetriesProperties;
import dev.resilience.autoconfigure.retry.RetryAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ResiliencePropertiesCheck}: each capability binds its own keys, and a key
 * under {@code resilience.} that none binds still fails startup, naming it.
 */
class ResiliencePropertiesCheckTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RetryAutoConfiguration.class, PollAutoConfiguration.class, ConnectionPoolAutoConfiguration.class,
				ResilienceEventsAutoConfiguration.class));

	@Test
	void runWhenEveryCapabilityIsConfiguredShouldBindEachInItsOwnProperties() {
		this.contextRunner
			.withPropertyValues("resilience.rate-limiters.x.windows[0].limit=5",
					"resilience.rate-limiters.x.windows[0].period=5s",
					"resilience.rate-limit-stack-traces=true", "resilience.retries.y.max-retries=2",
					"resilience.polls.z.max-attempts=3", "resilience.pools.p.max-size=2",
					"resilience.events.buffer-size=7", "resilience.aspect-order.retry=9")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RateLimitingProperties rateLimiting = context.getBean(RateLimitingProperties.class);
				assertThat(rateLimiting.getRateLimiters()).containsOnlyKeys("x");
				assertThat(rateLimiting.isRateLimitStackTraces()).isTrue();
				assertThat(context.getBean(RetriesProperties.class).getRetries().get("y").getMaxRetries()).isEqualTo(2);
				assertThat(context.getBean(PollsProperties.class).getPolls()).containsOnlyKeys("z");
				// Bound even when the events endpoint is not exposed, so that its keys are checked too.
				assertThat(context.getBean(ResilienceEventsProperties.class).getEvents().getBufferSize()).isEqualTo(7);
				assertThat(context.getBean(ResilienceProperties.class).getAspectOrder().getRetry()).isEqualTo(9);
			});
	}

	@Test
	void runWhenAKeyOfAnyCapabilityIsMisspelledShouldFailNamingIt() {
		assertUnbound("resilience.rate-limiters.x.tokne-bucket.capacity=5");
		assertUnbound("resilience.retries.y.max-retires=2");
		assertUnbound("resilience.polls.z.max-atempts=3");
		assertUnbound("resilience.pools.p.max-sise=2");
		assertUnbound("resilience.events.bufer-size=7");
		assertUnbound("resilience.redis.key-prefx=r:");
		assertUnbound("resilience.aspect-order.retyr=1");
		assertUnbound("resilience.retry.y.max-retries=2");
	}

	private void assertUnbound(String property) {
		String name = property.substring(0, property.indexOf('='));
		this.contextRunner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(Failures.messages(context.getStartupFailure()))
				.contains("The elements [" + name + "] were left unbound.");
		});
	}

}
