package dev.resilience.autoconfigure.actuate;

import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterRedisAutoConfiguration;
import dev.resilience.ratelimit.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the {@code resilience} health contributor joins the readiness group when a limiter
 * decides in Redis, and only then, and never against the application's own choice of members.
 * {@link ResilienceReadinessWebTests} asks the readiness group over HTTP with Redis up, killed and
 * frozen.
 */
class ResilienceReadinessTests {

	private static final RedisServer server = RedisServer.shared();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class,
				EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class,
				HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class,
				AvailabilityHealthContributorAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class,
				DataRedisAutoConfiguration.class, ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RateLimiterRedisAutoConfiguration.class, ResilienceHealthAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port(),
				"resilience.rate-limiters.local.windows[0].limit=5", "resilience.rate-limiters.local.windows[0].period=1m");

	private final ApplicationContextRunner withRedisLimiter = this.contextRunner.withPropertyValues(
			"resilience.redis.connect-timeout=30s", "resilience.rate-limiters.partner.store=redis", "resilience.rate-limiters.partner.windows[0].limit=5",
			"resilience.rate-limiters.partner.windows[0].period=1m");

	@Test
	void runWhenALimiterUsesRedisShouldPutTheContributorInTheReadinessGroup() {
		this.withRedisLimiter.run((context) -> {
			assertThat(readinessMembers(context)).containsExactlyInAnyOrder("readinessState", "resilience");
			// only readiness: liveness must not restart an instance because Redis is away
			assertThat(context.getBean(HealthEndpoint.class).healthForPath("liveness"))
				.isInstanceOfSatisfying(CompositeHealthDescriptor.class,
						(liveness) -> assertThat(liveness.getComponents()).containsOnlyKeys("livenessState"));
		});
	}

	@Test
	void runWhenNoLimiterUsesRedisShouldLeaveTheReadinessGroupAlone() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ResilienceHealthIndicator.class);
			assertThat(readinessMembers(context)).containsExactly("readinessState");
		});
	}

	@Test
	void runWhenTheApplicationChoseTheReadinessMembersShouldKeepItsChoice() {
		this.withRedisLimiter.withPropertyValues("management.endpoint.health.group.readiness.include=readinessState")
			.run((context) -> assertThat(readinessMembers(context)).containsExactly("readinessState"));
		this.withRedisLimiter.withPropertyValues("management.endpoint.health.group.readiness.exclude=resilience")
			.run((context) -> assertThat(readinessMembers(context)).doesNotContain("resilience"));
	}

	@Test
	void runWhenProbesHaveAdditionalPathsShouldKeepThem() {
		this.withRedisLimiter.withPropertyValues("management.endpoint.health.probes.add-additional-paths=true")
			.run((context) -> {
				HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
				assertThat(((AdditionalPathsMapper) groups).getAdditionalPaths(HealthEndpoint.ID,
						WebServerNamespace.SERVER)).contains("/readyz", "/livez");
				HealthEndpointGroup readyz = groups
					.get(AdditionalHealthEndpointPath.of(WebServerNamespace.SERVER, "/readyz"));
				assertThat(readyz).isNotNull();
				assertThat(readyz.isMember("resilience")).isTrue();
			});
	}

	@Test
	void runWhenTheHealthIndicatorIsDisabledShouldLeaveTheReadinessGroupAlone() {
		this.withRedisLimiter.withPropertyValues("management.health.resilience.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean("resilienceReadinessGroupsPostProcessor");
			assertThat(readinessMembers(context)).containsExactly("readinessState");
		});
	}

	@Test
	void runWithoutActuatorShouldKeepTheContributorAndLeaveTheGroupsOut() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
					ResilienceHealthAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate."))
			.withPropertyValues("resilience.rate-limiters.local.windows[0].limit=5",
					"resilience.rate-limiters.local.windows[0].period=1m")
			.run((context) -> {
				assertThat(context).hasSingleBean(ResilienceHealthIndicator.class);
				assertThat(context).doesNotHaveBean("resilienceReadinessGroupsPostProcessor");
			});
	}

	private static Iterable<String> readinessMembers(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		CompositeHealthDescriptor readiness = (CompositeHealthDescriptor) context.getBean(HealthEndpoint.class)
			.healthForPath("readiness");
		return readiness.getComponents().keySet();
	}

}
