package dev.resilience.autoconfigure.web;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExceptionResolver;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTicker;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimited;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.asyncDispatch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.request;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Tests the Spring MVC support through {@link MockMvc}: {@code 429} with a problem detail and the
 * {@code Retry-After}, {@code RateLimit-Policy} and {@code RateLimit} header fields.
 */
class RateLimitMvcTests {

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
				JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
				DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, AopAutoConfiguration.class,
				ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				RateLimitWebMvcAutoConfiguration.class))
		.withUserConfiguration(TestTimeConfiguration.class, GreetingController.class)
		.withBean(GreetingService.class)
		.withPropertyValues("resilience.rate-limiters.greeting.windows[0].limit=1",
				"resilience.rate-limiters.greeting.windows[0].period=5s",
				"resilience.rate-limiters.combined.token-bucket.capacity=10",
				"resilience.rate-limiters.combined.token-bucket.refill-tokens=5",
				"resilience.rate-limiters.combined.windows[0].limit=3",
				"resilience.rate-limiters.combined.windows[0].period=500ms",
				"resilience.rate-limiters.concurrent.max-concurrent=1",
				"resilience.rate-limiters.paced.windows[0].limit=3", "resilience.rate-limiters.paced.windows[0].period=5s",
				"resilience.rate-limiters.paced.windows[1].limit=10", "resilience.rate-limiters.paced.windows[1].period=1m",
				"resilience.rate-limiters.waiting.windows[0].limit=1",
				"resilience.rate-limiters.waiting.windows[0].period=200ms", "resilience.rate-limiters.waiting.max-wait=10s");

	@Test
	void callBeyondLimitShouldBe429WithProblemDetailAndHeaders() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mockMvc(context);
			mvc.perform(get("/greeting"))
				.andExpect(status().isOk())
				.andExpect(content().string("Hello, world"))
				.andExpect(header().string("RateLimit-Policy", "\"greeting-5s\";q=1;w=5"))
				.andExpect(header().string("RateLimit", "\"greeting-5s\";r=0;t=5"))
				.andExpect(header().doesNotExist("Retry-After"));
			context.getBean(TestTicker.class).advance(Duration.ofMillis(1500));
			mvc.perform(get("/greeting"))
				.andExpect(status().isTooManyRequests())
				.andExpect(content().contentType(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(header().string("Retry-After", "4"))
				.andExpect(header().string("RateLimit-Policy", "\"greeting-5s\";q=1;w=5"))
				.andExpect(header().string("RateLimit", "\"greeting-5s\";r=0;t=4"))
				.andExpect(jsonPath("$.status").value(429))
				.andExpect(jsonPath("$.title").value("Too Many Requests"))
				.andExpect(jsonPath("$.detail").value("Rate limit 'greeting' exceeded; retry after 4s"))
				.andExpect(jsonPath("$.instance").value("/greeting"))
				.andExpect(jsonPath("$.limiter").value("greeting"))
				.andExpect(jsonPath("$.retryAfterSeconds").value(4))
				.andExpect(jsonPath("$.key").doesNotExist());
		});
	}

	@Test
	void retryAfterShouldRoundUpToWholeSeconds() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mockMvc(context);
			mvc.perform(get("/greeting")).andExpect(status().isOk());
			context.getBean(TestTicker.class).advance(Duration.ofMillis(4999));
			mvc.perform(get("/greeting"))
				.andExpect(status().isTooManyRequests())
				.andExpect(header().string("Retry-After", "1"))
				.andExpect(header().string("RateLimit", "\"greeting-5s\";r=0;t=1"));
			context.getBean(TestTicker.class).advance(Duration.ofMillis(1));
			mvc.perform(get("/greeting")).andExpect(status().isOk());
		});
	}

	@Test
	void admittedCallShouldCarryOneItemPerBucketAndWindow() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mockMvc(context);
			// Bucket: 10 tokens, refilled 5 per second, so full after 2 s; window: 3 per 500 ms.
			mvc.perform(get("/combined"))
				.andExpect(status().isOk())
				.andExpect(header().string("RateLimit-Policy", "\"combined-bucket\";q=10;w=2, \"combined-500ms\";q=3;w=1"))
				.andExpect(header().string("RateLimit", "\"combined-bucket\";r=9;t=1, \"combined-500ms\";r=2;t=1"));
			mvc.perform(get("/combined")).andExpect(status().isOk());
			mvc.perform(get("/combined"))
				.andExpect(status().isOk())
				.andExpect(header().string("RateLimit", "\"combined-bucket\";r=7;t=1, \"combined-500ms\";r=0;t=1"));
			mvc.perform(get("/combined"))
				.andExpect(status().isTooManyRequests())
				.andExpect(header().string("Retry-After", "1"))
				.andExpect(header().string("RateLimit-Policy", "\"combined-bucket\";q=10;w=2, \"combined-500ms\";q=3;w=1"))
				.andExpect(header().string("RateLimit", "\"combined-bucket\";r=7;t=1, \"combined-500ms\";r=0;t=1"));
		});
	}

	/**
	 * A paused key's rejection tells the client the rest of the pause (here 2.5 s, spread by at
	 * most a tenth of it) twice over, alike: as Retry-After and as the {@code t} of every policy,
	 * none of which has quota left, whatever the bucket and window still hold.
	 */
	@Test
	void rejectionOfAPausedKeyShouldCarryThePauseAsRetryAfterAndNoQuotaLeft() {
		this.contextRunner.withPropertyValues("resilience.rate-limiters.combined.pause-on-throttle.enabled=true")
			.run((context) -> {
				MockMvc mvc = mockMvc(context);
				mvc.perform(get("/combined"))
					.andExpect(status().isOk())
					.andExpect(header().string("RateLimit", "\"combined-bucket\";r=9;t=1, \"combined-500ms\";r=2;t=1"));
				context.getBean(RateLimiterRegistry.class).get("combined").pause("", Duration.ofMillis(2500));
				mvc.perform(get("/combined"))
					.andExpect(status().isTooManyRequests())
					.andExpect(header().string("Retry-After", "3"))
					.andExpect(header().string("RateLimit-Policy",
							"\"combined-bucket\";q=10;w=2, \"combined-500ms\";q=3;w=1"))
					.andExpect(header().string("RateLimit", "\"combined-bucket\";r=0;t=3, \"combined-500ms\";r=0;t=3"))
					.andExpect(jsonPath("$.retryAfterSeconds").value(3));
				context.getBean(TestTicker.class).advance(Duration.ofMillis(1000));
				mvc.perform(get("/combined").accept(MediaType.APPLICATION_PROBLEM_JSON))
					.andExpect(status().isTooManyRequests())
					.andExpect(header().string("Retry-After", "2"))
					.andExpect(header().string("RateLimit", "\"combined-bucket\";r=0;t=2, \"combined-500ms\";r=0;t=2"));
			});
	}

	@Test
	void concurrencyOnlyLimiterShouldAnswer429WithRetryAfterOnly() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mockMvc(context);
			mvc.perform(get("/nested"))
				.andExpect(status().isTooManyRequests())
				.andExpect(header().string("Retry-After", "1"))
				.andExpect(header().doesNotExist("RateLimit-Policy"))
				.andExpect(header().doesNotExist("RateLimit"))
				.andExpect(jsonPath("$.limiter").value("concurrent"));
		});
	}

	@Test
	void rejectionAfterAnAdmittedCallInTheSameRequestShouldCarryOnlyTheRejectionsHeaders() {
		this.contextRunner.run((context) -> mockMvc(context).perform(get("/twice"))
			.andExpect(status().isTooManyRequests())
			.andExpect(header().stringValues("Retry-After", "5"))
			.andExpect(header().stringValues("RateLimit-Policy", "\"greeting-5s\";q=1;w=5"))
			.andExpect(header().stringValues("RateLimit", "\"greeting-5s\";r=0;t=5"))
			.andExpect(jsonPath("$.instance").value("/twice")));
	}

	@Test
	void requestCallingALimitedBeanThreeTimesShouldCarryOneItemPerPolicyWithTheLastState() {
		this.contextRunner.run((context) -> mockMvc(context).perform(get("/paced").param("calls", "3"))
			.andExpect(status().isOk())
			.andExpect(header().stringValues("RateLimit-Policy", "\"paced-5s\";q=3;w=5, \"paced-60s\";q=10;w=60"))
			.andExpect(header().stringValues("RateLimit", "\"paced-5s\";r=0;t=5, \"paced-60s\";r=7;t=60")));
	}

	@Test
	void rejectionAfterThreeAdmittedCallsShouldCarryTheRejectingStateOnce() {
		this.contextRunner.run((context) -> mockMvc(context).perform(get("/paced").param("calls", "4"))
			.andExpect(status().isTooManyRequests())
			.andExpect(header().stringValues("Retry-After", "5"))
			.andExpect(header().stringValues("RateLimit-Policy", "\"paced-5s\";q=3;w=5, \"paced-60s\";q=10;w=60"))
			.andExpect(header().stringValues("RateLimit", "\"paced-5s\";r=0;t=5, \"paced-60s\";r=7;t=60")));
	}

	@Test
	void rejectionShouldKeepThePoliciesOfOtherLimitersAdmittedInTheSameRequest() {
		this.contextRunner.run((context) -> mockMvc(context).perform(get("/greeting-then-paced").param("calls", "4"))
			.andExpect(status().isTooManyRequests())
			.andExpect(header().stringValues("RateLimit-Policy",
					"\"greeting-5s\";q=1;w=5, \"paced-5s\";q=3;w=5, \"paced-60s\";q=10;w=60"))
			.andExpect(header().stringValues("RateLimit",
					"\"greeting-5s\";r=0;t=5, \"paced-5s\";r=0;t=5, \"paced-60s\";r=7;t=60")));
	}

	@Test
	void asynchronousCallAdmittedAfterItsWaitShouldCarryRateLimitLikeOneAdmittedAtOnce() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mockMvc(context);
			for (String path : List.of("/waiting-stage", "/waiting-stage", "/waiting-mono")) {
				// The first is admitted at once, on the request's thread; the others wait 200 ms for
				// their slots and are admitted on the scheduler's thread.
				MvcResult started = mvc.perform(get(path)).andExpect(request().asyncStarted()).andReturn();
				started.getAsyncResult(5000);
				mvc.perform(asyncDispatch(started))
					.andExpect(status().isOk())
					.andExpect(content().string("waited"))
					.andExpect(header().stringValues("RateLimit-Policy", "\"waiting-200ms\";q=1;w=1"))
					.andExpect(header().stringValues("RateLimit", "\"waiting-200ms\";r=0;t=1"));
			}
		});
	}

	@Test
	void rejectionAfterTheResponseStartedStreamingShouldNotAppendAProblemDetailToIt() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mockMvc(context);
			mvc.perform(get("/greeting").param("name", "streamed")).andExpect(status().isOk());
			// Flux<String> is streamed as text: "first " is out (200, committed) before the rejection.
			MvcResult started = mvc.perform(get("/streamed")).andExpect(request().asyncStarted()).andReturn();
			assertThat(started.getAsyncResult(5000)).isInstanceOf(RateLimitExceededException.class);
			try {
				mvc.perform(asyncDispatch(started));
			}
			catch (Exception ex) {
				// a committed response cannot become a 429: the failure goes to the container
				assertThat(ex).hasRootCauseInstanceOf(RateLimitExceededException.class);
			}
			// The 429's problem detail went out as more of the 200's body: "first {"detail":...}"
			assertThat(started.getResponse().getStatus()).isEqualTo(200);
			assertThat(started.getResponse().getContentAsString()).isEqualTo("first ");
		});
	}

	@Test
	void userExceptionHandlerShouldWin() {
		this.contextRunner.withUserConfiguration(OwnAdvice.class).run((context) -> {
			MockMvc mvc = mockMvc(context);
			mvc.perform(get("/greeting")).andExpect(status().isOk());
			mvc.perform(get("/greeting"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(content().string("busy: greeting"))
				.andExpect(header().doesNotExist("Retry-After"));
		});
	}

	@Test
	void rejectionAnsweredWithoutMvcResolutionShouldEqualMvcsAnswer() {
		this.contextRunner.run((context) -> {
			MockMvc mvc = mockMvc(context);
			mvc.perform(get("/greeting")).andExpect(status().isOk());
			// Time stands still: both rejections see the same state. "*/*" is answered by the
			// resolver; an explicit problem+json goes through MVC's @ExceptionHandler resolution.
			MockHttpServletResponse fast = mvc.perform(get("/greeting").accept(MediaType.ALL)).andReturn().getResponse();
			MockHttpServletResponse mvcs = mvc.perform(get("/greeting").accept(MediaType.APPLICATION_PROBLEM_JSON))
				.andReturn()
				.getResponse();
			assertThat(fast.getStatus()).isEqualTo(429);
			assertThat(fast.getStatus()).isEqualTo(mvcs.getStatus());
			assertThat(fast.getContentAsString()).isEqualTo(mvcs.getContentAsString());
			assertThat(fast.getContentType()).isEqualTo(mvcs.getContentType());
			assertThat(fast.getHeaderNames()).containsExactlyElementsOf(withContentLength(mvcs.getHeaderNames()));
			for (String name : mvcs.getHeaderNames()) {
				assertThat(fast.getHeaders(name)).as(name).isEqualTo(mvcs.getHeaders(name));
			}
			assertThat(fast.getContentLength()).isEqualTo(fast.getContentAsByteArray().length);
		});
	}

	@Test
	void resolverShouldAnswerARejectionOnlyWhereMvcWouldUseTheStartersHandler() {
		this.contextRunner.withUserConfiguration(LocalHandlerController.class).run((context) -> {
			HandlerExceptionResolver resolver = context.getBean(RateLimitExceptionResolver.class);
			RateLimitExceededException rejection = rejection(context);
			HandlerMethod greeting = handlerMethod(context.getBean(GreetingController.class), "greeting");
			MockHttpServletResponse answered = new MockHttpServletResponse();
			assertThat(resolver.resolveException(new MockHttpServletRequest("GET", "/greeting"), answered, greeting,
					rejection))
				.isNotNull();
			assertThat(answered.getStatus()).isEqualTo(429);
			assertThat(answered.getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			assertThat(answered.getContentAsString()).contains("\"instance\":\"/greeting\"")
				.contains("\"limiter\":\"greeting\"");
			MockHttpServletRequest xml = new MockHttpServletRequest("GET", "/greeting");
			xml.addHeader("Accept", "application/xml");
			assertThat(resolver.resolveException(xml, new MockHttpServletResponse(), greeting, rejection)).isNull();
			assertThat(resolver.resolveException(new MockHttpServletRequest("GET", "/local"),
					new MockHttpServletResponse(), handlerMethod(context.getBean(LocalHandlerController.class), "local"),
					rejection))
				.isNull();
			assertThat(resolver.resolveException(new MockHttpServletRequest("GET", "/greeting"),
					new MockHttpServletResponse(), greeting, new IllegalStateException("other")))
				.isNull();
		});
	}

	@Test
	void resolverShouldLeaveRejectionsToAUsersAdvice() {
		this.contextRunner.withUserConfiguration(OwnAdvice.class).run((context) -> {
			HandlerExceptionResolver resolver = context.getBean(RateLimitExceptionResolver.class);
			assertThat(resolver.resolveException(new MockHttpServletRequest("GET", "/greeting"),
					new MockHttpServletResponse(), handlerMethod(context.getBean(GreetingController.class), "greeting"),
					rejection(context)))
				.isNull();
		});
	}

	@Test
	void controllersOwnExceptionHandlerShouldWin() {
		this.contextRunner.withUserConfiguration(LocalHandlerController.class)
			.run((context) -> mockMvc(context).perform(get("/local"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(content().string("local: greeting"))
				.andExpect(header().doesNotExist("Retry-After")));
	}

	private static RateLimitExceededException rejection(AssertableWebApplicationContext context) {
		RateLimiter limiter = context.getBean(RateLimiterRegistry.class).get("greeting");
		limiter.tryAcquire("", 1);
		RateLimitDecision decision = limiter.tryAcquire("", 1);
		assertThat(decision.isPermitted()).isFalse();
		return new RateLimitExceededException(decision, false);
	}

	private static HandlerMethod handlerMethod(Object controller, String name) {
		Method method = Arrays.stream(controller.getClass().getDeclaredMethods())
			.filter((candidate) -> candidate.getName().equals(name))
			.findFirst()
			.orElseThrow();
		return new HandlerMethod(controller, method);
	}

	private static List<String> withContentLength(Collection<String> names) {
		List<String> all = new ArrayList<>(names);
		all.add(all.indexOf("Content-Type") + 1, "Content-Length");
		return all;
	}

	private static MockMvc mockMvc(AssertableWebApplicationContext context) {
		return MockMvcBuilders.webAppContextSetup(context).build();
	}

	@RestController
	static class GreetingController {

		private final GreetingService service;

		GreetingController(GreetingService service) {
			this.service = service;
		}

		@GetMapping("/greeting")
		String greeting(@RequestParam(defaultValue = "world") String name) {
			return this.service.greet(name);
		}

		@GetMapping("/twice")
		String twice() {
			return this.service.greet("one") + this.service.greet("two");
		}

		@GetMapping("/paced")
		String paced(@RequestParam int calls) {
			for (int i = 0; i < calls; i++) {
				this.service.paced();
			}
			return "paced";
		}

		@GetMapping("/greeting-then-paced")
		String greetingThenPaced(@RequestParam int calls) {
			this.service.greet("first");
			return paced(calls);
		}

		@GetMapping("/combined")
		String combined() {
			return this.service.combined();
		}

		@GetMapping("/waiting-stage")
		CompletableFuture<String> waitingStage() {
			return this.service.waiting();
		}

		@GetMapping("/waiting-mono")
		Mono<String> waitingMono() {
			return this.service.waitingMono();
		}

		@GetMapping("/streamed")
		Flux<String> streamed() {
			return Flux.concat(Mono.just("first "), Mono.fromSupplier(() -> this.service.greet("streamed")));
		}

		@GetMapping("/nested")
		String nested() {
			return this.service.concurrent(() -> this.service.concurrent(() -> "inner"));
		}

	}

	public static class GreetingService {

		@RateLimited("greeting")
		public String greet(String name) {
			return "Hello, " + name;
		}

		@RateLimited("paced")
		public String paced() {
			return "paced";
		}

		@RateLimited("combined")
		public String combined() {
			return "combined";
		}

		@RateLimited("waiting")
		public CompletableFuture<String> waiting() {
			return CompletableFuture.completedFuture("waited");
		}

		@RateLimited("waiting")
		public Mono<String> waitingMono() {
			return Mono.just("waited");
		}

		@RateLimited("concurrent")
		public String concurrent(Supplier<String> body) {
			return body.get();
		}

	}

	@RestController
	static class LocalHandlerController {

		private final GreetingService service;

		LocalHandlerController(GreetingService service) {
			this.service = service;
		}

		@GetMapping("/local")
		String local() {
			this.service.greet("one");
			return this.service.greet("two");
		}

		@ExceptionHandler(RateLimitExceededException.class)
		ResponseEntity<String> busy(RateLimitExceededException ex) {
			return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("local: " + ex.getLimiterName());
		}

	}

	@RestControllerAdvice
	static class OwnAdvice {

		@ExceptionHandler(RateLimitExceededException.class)
		ResponseEntity<String> busy(RateLimitExceededException ex) {
			return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("busy: " + ex.getLimiterName());
		}

	}

}
