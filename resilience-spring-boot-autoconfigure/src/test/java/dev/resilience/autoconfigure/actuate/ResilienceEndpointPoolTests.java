package dev.resilience.autoconfigure.actuate;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.PoolDescriptor;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.pool.ConnectionFactory;
import dev.resilience.pool.ConnectionPool;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that {@code GET /actuator/resilience} lists every pool with its settings and what it
 * holds now.
 */
class ResilienceEndpointPoolTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				ConnectionPoolAutoConfiguration.class, ResilienceEndpointAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=resilience",
				"resilience.pools.partner.max-size=3", "resilience.pools.partner.timeout=15s",
				"resilience.pools.partner.max-idle-time=2m", "resilience.pools.other.min-idle=1",
				// idle connections are a factory's: a pool of permits has none to keep or close
				"resilience.pools.partner.factory=sessions", "resilience.pools.other.factory=sessions")
		.withBean("sessions", ConnectionFactory.class, () -> (ConnectionFactory<StringBuilder>) StringBuilder::new);

	@Test
	void resilienceShouldListPoolsWithSettingsAndLiveCounts() {
		this.contextRunner.run((context) -> {
			ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
			assertThat(endpoint.resilience().pools()).containsOnlyKeys("partner", "other");
			assertThat(endpoint.resilience().pools().get("partner"))
				.isEqualTo(new PoolDescriptor(3, 0, "15s", false, "2m", 0, 0, 0, 0));
			ConnectionPool<?> partner = context.getBean("partner", ConnectionPool.class);
			CountDownLatch inside = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Thread holder = new Thread(() -> partner.withConnection((permit) -> {
				inside.countDown();
				release.await();
				return null;
			}));
			holder.start();
			inside.await();
			assertThat(endpoint.resilience().pools().get("partner").active()).isOne();
			release.countDown();
			holder.join();
			assertThat(endpoint.resilience().pools().get("partner").idle()).isOne();
			assertThat(endpoint.resilience().pools().get("other"))
				.isEqualTo(new PoolDescriptor(8, 1, "30s", false, null, 0, 1, 0, 0));
		});
	}

}
