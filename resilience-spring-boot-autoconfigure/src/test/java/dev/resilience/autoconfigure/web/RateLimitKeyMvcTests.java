package dev.resilience.autoconfigure.web;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.RateLimited;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

/**
 * The {@code 429} answer to a rejection never carries the rate-limit key, in its body or its
 * header fields, even with {@code resilience.include-keys}, which is about what the application
 * writes for its operators (messages, events), not what it answers to clients.
 */
class RateLimitKeyMvcTests {

	private static final String SECRET = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
				JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
				DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RateLimitWebMvcAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class, KeyedController.class)
		.withBean(KeyedService.class)
		.withPropertyValues("resilience.rate-limiters.keyed.windows[0].limit=1",
				"resilience.rate-limiters.keyed.windows[0].period=5s");

	@Test
	void aRejectionsAnswerCarriesNoKey() {
		this.contextRunner.run((context) -> assertNoKeyIn429(MockMvcBuilders.webAppContextSetup(context).build()));
	}

	@Test
	void aRejectionsAnswerCarriesNoKeyWhenKeysAreIncluded() {
		this.contextRunner.withPropertyValues("resilience.include-keys=true")
			.run((context) -> assertNoKeyIn429(MockMvcBuilders.webAppContextSetup(context).build()));
	}

	private static void assertNoKeyIn429(MockMvc mvc) throws Exception {
		assertThat(mvc.perform(get("/keyed").header("X-Api-Key", SECRET)).andReturn().getResponse().getStatus())
			.isEqualTo(200);
		MockHttpServletResponse rejected = mvc.perform(get("/keyed").header("X-Api-Key", SECRET))
			.andReturn()
			.getResponse();
		assertThat(rejected.getStatus()).isEqualTo(429);
		assertThat(rejected.getContentAsString()).contains("\"limiter\":\"keyed\"").doesNotContain(SECRET);
		assertThat(rejected.getHeaderNames()).contains("Retry-After", "RateLimit-Policy", "RateLimit")
			.allSatisfy((name) -> assertThat(rejected.getHeaders(name)).allSatisfy(
					(value) -> assertThat(value).doesNotContain(SECRET)));
	}

	@RestController
	static class KeyedController {

		private final KeyedService service;

		KeyedController(KeyedService service) {
			this.service = service;
		}

		@GetMapping("/keyed")
		String keyed(@RequestHeader("X-Api-Key") String apiKey) {
			return this.service.call(apiKey);
		}

	}

	static class KeyedService {

		@RateLimited(name = "keyed", key = "#apiKey")
		public String call(String apiKey) {
			return "ok";
		}

	}

}
