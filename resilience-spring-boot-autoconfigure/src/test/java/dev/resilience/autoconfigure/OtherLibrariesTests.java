package dev.resilience.autoconfigure;

import io.github.resilience4j.ratelimiter.RequestNotPermitted;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests an application that has the starter beside other libraries' starters (Resilience4j's and
 * Spring Cloud's), all auto-configured as in a user's application: it starts, and both rate
 * limiting annotations work on one bean.
 */
class OtherLibrariesTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withUserConfiguration(Application.class)
		.withPropertyValues("management.endpoints.web.exposure.include=resilience",
				"resilience.rate-limiters.ours.windows[0].limit=2", "resilience.rate-limiters.ours.windows[0].period=1h",
				"resilience4j.ratelimiter.instances.theirs.limit-for-period=3",
				"resilience4j.ratelimiter.instances.theirs.limit-refresh-period=1h",
				"resilience4j.ratelimiter.instances.theirs.timeout-duration=0s");

	@Test
	void runWithResilience4jAndSpringCloudShouldStartAndBothRateLimitersShouldWork() {
		this.contextRunner.run((context) -> {
			// Resilience4j's registry keeps its name; with Spring Cloud it is refresh-scoped.
			assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimiterRegistry.class)
				.hasBean("rateLimiterRegistry")
				.getBean("rateLimiterRegistry")
				.isInstanceOf(io.github.resilience4j.ratelimiter.RateLimiterRegistry.class);
			Client client = context.getBean(Client.class);
			for (int i = 0; i < 2; i++) {
				assertThat(client.ours()).isEqualTo("ours");
			}
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(client::ours);
			for (int i = 0; i < 3; i++) {
				assertThat(client.theirs()).isEqualTo("theirs");
			}
			assertThatExceptionOfType(RequestNotPermitted.class).isThrownBy(client::theirs);
		});
	}

	@Test
	void runShouldNameEveryBeanOfTheStarterWithTheResiliencePrefix() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			String[] names = context.getBeanDefinitionNames();
			assertThat(names).filteredOn((name) -> isOurs(context.getType(name)))
				.hasSizeGreaterThanOrEqualTo(10)
				// Boot names a properties bean <prefix>-<class>: resilience.events-dev.resilience...
				.allSatisfy((name) -> assertThat(name).matches("resilience[A-Z.-].*|dev\\.resilience\\..*"));
		});
	}

	/** A type of the starter's main code: the test's own beans are nested in test classes. */
	private static boolean isOurs(Class<?> type) {
		return type != null && type.getName().startsWith("dev.resilience.") && !type.getName().contains("Tests$");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Client client() {
			return new Client();
		}

	}

	public static class Client {

		@RateLimited("ours")
		public String ours() {
			return "ours";
		}

		@io.github.resilience4j.ratelimiter.annotation.RateLimiter(name = "theirs")
		public String theirs() {
			return "theirs";
		}

	}

}
