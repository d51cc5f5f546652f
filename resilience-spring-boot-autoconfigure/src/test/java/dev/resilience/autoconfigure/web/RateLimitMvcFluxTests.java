package dev.resilience.autoconfigure.web;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.RateLimited;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.asyncDispatch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.request;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The Spring MVC counterpart of {@link RateLimitWebFluxStreamingTests}: MVC collects a
 * {@code Flux} answered as JSON before writing it, so every limiter its elements went through has
 * decided before the response commits, and a later limiter's rejection is a {@code 429} carrying
 * the items of the limiters that admitted earlier.
 */
class RateLimitMvcFluxTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
				JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
				DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RateLimitWebMvcAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class, ItemController.class)
		.withBean(ItemService.class)
		.withPropertyValues("resilience.rate-limiters.wide.windows[0].limit=10",
				"resilience.rate-limiters.wide.windows[0].period=5s",
				"resilience.rate-limiters.narrow.windows[0].limit=1",
				"resilience.rate-limiters.narrow.windows[0].period=5s");

	@Test
	void jsonFluxWhoseSecondLimiterRejectsShouldBe429() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
			mvc.perform(asyncDispatch(started(mvc, "/two")))
				.andExpect(status().isOk())
				.andExpect(header().string("RateLimit", "\"wide-5s\";r=9;t=5, \"narrow-5s\";r=0;t=5"))
				.andExpect(content().json("[{\"name\":\"a\"},{\"name\":\"b\"}]"));
			mvc.perform(asyncDispatch(started(mvc, "/two")))
				.andExpect(status().isTooManyRequests())
				.andExpect(header().string("RateLimit-Policy", "\"narrow-5s\";q=1;w=5"))
				.andExpect(header().string("RateLimit", "\"narrow-5s\";r=0;t=5"))
				.andExpect(jsonPath("$.limiter").value("narrow"));
		});
	}

	@Test
	void jsonFluxWhoseLaterLimiterRejectsAfterItsFirstItemShouldBe429WithTheEarlierLimitersItems() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
			mvc.perform(asyncDispatch(started(mvc, "/concat")))
				.andExpect(status().isOk())
				.andExpect(header().string("RateLimit", "\"wide-5s\";r=9;t=5, \"narrow-5s\";r=0;t=5"))
				.andExpect(content().json("[{\"name\":\"w1\"},{\"name\":\"w2\"},{\"name\":\"n\"}]"));
			mvc.perform(asyncDispatch(started(mvc, "/concat")))
				.andExpect(status().isTooManyRequests())
				.andExpect(header().string("Retry-After", "5"))
				.andExpect(header().string("RateLimit-Policy", "\"wide-5s\";q=10;w=5, \"narrow-5s\";q=1;w=5"))
				.andExpect(header().string("RateLimit", "\"wide-5s\";r=8;t=5, \"narrow-5s\";r=0;t=5"))
				.andExpect(jsonPath("$.limiter").value("narrow"));
		});
	}

	private static MvcResult started(MockMvc mvc, String path) throws Exception {
		return mvc.perform(get(path).accept(MediaType.APPLICATION_JSON)).andExpect(request().asyncStarted()).andReturn();
	}

	record Item(String name) {
	}

	@RestController
	static class ItemController {

		private final ItemService service;

		ItemController(ItemService service) {
			this.service = service;
		}

		@GetMapping(path = "/two", produces = MediaType.APPLICATION_JSON_VALUE)
		Flux<Item> two() {
			return this.service.two();
		}

		@GetMapping(path = "/concat", produces = MediaType.APPLICATION_JSON_VALUE)
		Flux<Item> concat() {
			return this.service.wide().concatWith(this.service.narrow());
		}

	}

	public static class ItemService {

		@RateLimited("wide")
		@RateLimited("narrow")
		public Flux<Item> two() {
			return Flux.just(new Item("a"), new Item("b"));
		}

		@RateLimited("wide")
		public Flux<Item> wide() {
			return Flux.just(new Item("w1"), new Item("w2"));
		}

		@RateLimited("narrow")
		public Flux<Item> narrow() {
			return Flux.just(new Item("n"));
		}

	}

}
