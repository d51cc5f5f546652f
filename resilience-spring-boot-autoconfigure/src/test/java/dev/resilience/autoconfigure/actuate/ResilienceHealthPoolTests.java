package dev.resilience.autoconfigure.actuate;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.pool.ConnectionPoolAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.pool.ConnectionFactory;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolStats;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the {@code resilience} health contributor details every pool with what it holds now,
 * and that a pool whose connections are all handed out does not make it {@code DOWN}.
 */
class ResilienceHealthPoolTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				ConnectionPoolAutoConfiguration.class, ResilienceHealthAutoConfiguration.class))
		.withPropertyValues("resilience.pools.partner.max-size=1", "resilience.pools.other.min-idle=1",
				"resilience.pools.other.factory=sessions")
		.withBean("sessions", ConnectionFactory.class, () -> (ConnectionFactory<StringBuilder>) StringBuilder::new);

	@Test
	void healthShouldDetailEveryPoolAndStayUpWhenAPoolIsFullyBusy() {
		this.contextRunner.run((context) -> {
			ResilienceHealthIndicator indicator = context.getBean(ResilienceHealthIndicator.class);
			assertThat(pools(indicator.health())).containsExactly(Map.entry("partner", new ConnectionPoolStats(1, 0, 0, 0, 0)),
					Map.entry("other", new ConnectionPoolStats(8, 0, 1, 0, 0)));
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
			Health busy = indicator.health();
			assertThat(busy.getStatus()).isEqualTo(Status.UP);
			assertThat(pools(busy)).containsEntry("partner", new ConnectionPoolStats(1, 1, 0, 0, 0));
			release.countDown();
			holder.join();
		});
	}

	@SuppressWarnings("unchecked")
	private static Map<String, ConnectionPoolStats> pools(Health health) {
		return (Map<String, ConnectionPoolStats>) health.getDetails().get("pools");
	}

}
