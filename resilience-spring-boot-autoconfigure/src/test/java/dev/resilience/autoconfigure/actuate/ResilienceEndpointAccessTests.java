package dev.resilience.autoconfigure.actuate;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.support.ConfigurableConversionService;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Tests who may use the {@code resilience} endpoint (docs/operations.md): read-only by default,
 * reset with {@code management.endpoint.resilience.access=unrestricted}, and over JMX as well as
 * HTTP.
 */
class ResilienceEndpointAccessTests {

	// SpringApplication's conversion service, which reads enum values such as "unrestricted" leniently.
	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withInitializer((context) -> context.getEnvironment()
			.setConversionService((ConfigurableConversionService) ApplicationConversionService.getSharedInstance()))
		.withUserConfiguration(Application.class)
		.withPropertyValues("management.endpoints.web.exposure.include=resilience",
				"resilience.rate-limiters.partner-api.windows[0].limit=3",
				"resilience.rate-limiters.partner-api.windows[0].period=1h");

	@Test
	void runWhenAccessIsDefaultShouldReadButRefuseReset() {
		this.contextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner-api");
			limiter.tryAcquire("alice", 1);
			MockMvc mvc = mockMvc(context);
			mvc.perform(get("/actuator/resilience")).andExpect(status().isOk());
			mvc.perform(get("/actuator/resilience/partner-api").param("key", "alice"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.remaining").value(2));
			mvc.perform(delete("/actuator/resilience/partner-api").param("key", "alice"))
				.andExpect(status().isMethodNotAllowed());
			assertThat(limiter.inspect("alice").getRemaining()).isEqualTo(2);
		});
	}

	@Test
	void runWhenAccessIsDefaultShouldRefuseChangingSettings() {
		this.contextRunner.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner-api");
			mockMvc(context)
				.perform(post("/actuator/resilience/partner-api").contentType(MediaType.APPLICATION_JSON)
					.content("{\"properties\": {\"windows[0].limit\": \"5\"}}"))
				.andExpect(status().isMethodNotAllowed());
			assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(3);
		});
	}

	@Test
	void runWhenAccessIsUnrestrictedShouldResetAKey() {
		this.contextRunner.withPropertyValues("management.endpoint.resilience.access=unrestricted").run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("partner-api");
			limiter.tryAcquire("alice", 1);
			mockMvc(context).perform(delete("/actuator/resilience/partner-api").param("key", "alice"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.remaining").value(3));
			assertThat(limiter.inspect("alice").getRemaining()).isEqualTo(3);
		});
	}

	@Test
	void runWhenExposedOverJmxShouldRegisterTheEndpointMBean() {
		new ApplicationContextRunner().withUserConfiguration(Application.class)
			.withPropertyValues("spring.jmx.enabled=true", "spring.jmx.unique-names=true",
					"management.endpoints.jmx.exposure.include=resilience",
					"resilience.rate-limiters.partner-api.windows[0].limit=3",
					"resilience.rate-limiters.partner-api.windows[0].period=1h")
			.run((context) -> {
				assertThat(context).hasSingleBean(ResilienceEndpoint.class).doesNotHaveBean(ResilienceEndpointWebExtension.class);
				MBeanServer server = ManagementFactory.getPlatformMBeanServer();
				Set<ObjectName> names = server.queryNames(new ObjectName("*:type=Endpoint,name=Resilience,*"), null);
				assertThat(names).hasSize(1);
				Object descriptor = server.invoke(names.iterator().next(), "resilience", new Object[0], new String[0]);
				assertThat(descriptor).isInstanceOf(Map.class);
				Object rateLimiters = ((Map<?, ?>) descriptor).get("rateLimiters");
				assertThat(rateLimiters).isInstanceOf(Map.class);
				assertThat(((Map<?, ?>) rateLimiters).keySet()).hasToString("[partner-api]");
			});
	}

	private static MockMvc mockMvc(AssertableWebApplicationContext context) {
		return MockMvcBuilders.webAppContextSetup(context).build();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
