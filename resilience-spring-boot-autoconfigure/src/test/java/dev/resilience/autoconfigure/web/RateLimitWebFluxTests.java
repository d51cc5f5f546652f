package dev.resilience.autoconfigure.web;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimitDecisionRecorder;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests the Spring WebFlux support over real HTTP, in a reactive Spring Boot application whose
 * auto-configuration comes from the starter's {@code AutoConfiguration.imports}: {@code 429} with
 * a problem detail and the {@code Retry-After}, {@code RateLimit-Policy} and {@code RateLimit}
 * header fields, and {@code RateLimit} on admitted responses. The context is shared by the tests,
 * so each uses its own key; the clock stands still.
 * <p>
 * The {@code /mono} handler does what the Reactor driver of {@code @RateLimited} does: it decides
 * at subscription, on another thread (as after a scheduled wait), reports each admitting decision
 * to the {@link RateLimitDecisionRecorder} of its subscriber's Reactor {@code Context} and signals
 * a rejection as {@code onError}.
 */
@SpringBootTest(classes = RateLimitWebFluxTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive",
				"resilience.rate-limiters.greeting.windows[0].limit=1",
				"resilience.rate-limiters.greeting.windows[0].period=5s",
				"resilience.rate-limiters.combined.token-bucket.capacity=10",
				"resilience.rate-limiters.combined.token-bucket.refill-tokens=5",
				"resilience.rate-limiters.combined.windows[0].limit=3",
				"resilience.rate-limiters.combined.windows[0].period=500ms",
				"resilience.rate-limiters.concurrent.max-concurrent=1",
				"resilience.rate-limiters.paced.windows[0].limit=3", "resilience.rate-limiters.paced.windows[0].period=5s",
				"resilience.rate-limiters.paced.windows[1].limit=10",
				"resilience.rate-limiters.paced.windows[1].period=1m" })
@ExtendWith(OutputCaptureExtension.class)
class RateLimitWebFluxTests {

	@LocalServerPort
	private int port;

	private WebTestClient client;

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	@BeforeEach
	void bindToServer() {
		// WebTestClient's default 5 s for a response was missed at a load of 34 on 2 cores; a response
		// that never comes still fails the test
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + this.port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@Test
	void applicationShouldBeReactiveWithWebFluxSupportOnly(@Autowired ApplicationContext context) {
		assertThat(context.getBeansOfType(DispatcherHandler.class)).hasSize(1);
		assertThat(context.getBeansOfType(RateLimitWebFluxExceptionHandler.class)).hasSize(1);
		assertThat(context.getBeansOfType(RateLimitWebExceptionHandler.class)).hasSize(1);
		assertThat(context.getBeansOfType(RateLimitWebFluxFilter.class)).hasSize(1);
		assertThat(context.getBeansOfType(RateLimitWebFluxListener.class)).hasSize(1);
		assertThat(context.getBeansOfType(RateLimitExceptionHandler.class)).isEmpty();
		assertThat(context.getBeansOfType(RateLimitResponseHeaders.class)).isEmpty();
	}

	@Test
	void admittedMonoShouldCarryRateLimitAndRejectedOneShouldBe429WithProblemDetailAndHeaders() {
		this.client.get()
			.uri("/mono?limiters=greeting&key=first")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"greeting-5s\";q=1;w=5")
			.expectHeader()
			.valueEquals("RateLimit", "\"greeting-5s\";r=0;t=5")
			.expectHeader()
			.doesNotExist("Retry-After")
			.expectBody(String.class)
			.isEqualTo("admitted 1");
		this.client.get()
			.uri("/mono?limiters=greeting&key=first")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectHeader()
			.valueEquals("Retry-After", "5")
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"greeting-5s\";q=1;w=5")
			.expectHeader()
			.valueEquals("RateLimit", "\"greeting-5s\";r=0;t=5")
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(429)
			.jsonPath("$.title")
			.isEqualTo("Too Many Requests")
			.jsonPath("$.detail")
			.isEqualTo("Rate limit 'greeting' exceeded; retry after 5s")
			.jsonPath("$.instance")
			.isEqualTo("/mono")
			.jsonPath("$.limiter")
			.isEqualTo("greeting")
			.jsonPath("$.retryAfterSeconds")
			.isEqualTo(5)
			.jsonPath("$.key")
			.doesNotExist();
	}

	@Test
	void admittedMonoShouldCarryOneItemPerBucketAndWindow() {
		// Bucket: 10 tokens, refilled 5 per second, so full after 2 s; window: 3 per 500 ms.
		this.client.get()
			.uri("/mono?limiters=combined&key=items")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"combined-bucket\";q=10;w=2, \"combined-500ms\";q=3;w=1")
			.expectHeader()
			.valueEquals("RateLimit", "\"combined-bucket\";r=9;t=1, \"combined-500ms\";r=2;t=1");
	}

	@Test
	void monoCallingALimiterThreeTimesShouldCarryOneItemPerPolicyWithTheLastState() {
		this.client.get()
			.uri("/mono?limiters=paced,paced,paced&key=three")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.values("RateLimit-Policy", (values) -> assertThat(values)
				.containsExactly("\"paced-5s\";q=3;w=5, \"paced-60s\";q=10;w=60"))
			.expectHeader()
			.values("RateLimit",
					(values) -> assertThat(values).containsExactly("\"paced-5s\";r=0;t=5, \"paced-60s\";r=7;t=60"))
			.expectBody(String.class)
			.isEqualTo("admitted 3");
	}

	@Test
	void rejectionAfterThreeAdmittedCallsShouldCarryTheRejectingStateOnce() {
		this.client.get()
			.uri("/mono?limiters=paced,paced,paced,paced&key=four")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.values("Retry-After", (values) -> assertThat(values).containsExactly("5"))
			.expectHeader()
			.values("RateLimit-Policy", (values) -> assertThat(values)
				.containsExactly("\"paced-5s\";q=3;w=5, \"paced-60s\";q=10;w=60"))
			.expectHeader()
			.values("RateLimit",
					(values) -> assertThat(values).containsExactly("\"paced-5s\";r=0;t=5, \"paced-60s\";r=7;t=60"));
	}

	@Test
	void rejectionShouldKeepThePoliciesOfOtherLimitersAdmittedInTheSameExchange() {
		this.client.get()
			.uri("/mono?limiters=greeting,paced,paced,paced,paced&key=others")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.values("RateLimit-Policy", (values) -> assertThat(values)
				.containsExactly("\"greeting-5s\";q=1;w=5, \"paced-5s\";q=3;w=5, \"paced-60s\";q=10;w=60"))
			.expectHeader()
			.values("RateLimit", (values) -> assertThat(values)
				.containsExactly("\"greeting-5s\";r=0;t=5, \"paced-5s\";r=0;t=5, \"paced-60s\";r=7;t=60"));
	}

	@Test
	void concurrencyOnlyLimiterShouldAnswer429WithRetryAfterOnly() {
		this.client.get()
			.uri("/nested?key=nested")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.valueEquals("Retry-After", "1")
			.expectHeader()
			.doesNotExist("RateLimit-Policy")
			.expectHeader()
			.doesNotExist("RateLimit")
			.expectBody()
			.jsonPath("$.limiter")
			.isEqualTo("concurrent");
	}

	@Test
	void decisionNotRecordedOnAnotherThreadShouldAddNoItems() {
		this.client.get()
			.uri("/unrecorded?key=unrecorded")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.doesNotExist("RateLimit-Policy")
			.expectHeader()
			.doesNotExist("RateLimit");
	}

	@Test
	void blockingCallFromAHandlerShouldCarryRateLimitThroughTheListener() {
		this.client.get()
			.uri("/blocking?key=blocking")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"greeting-5s\";q=1;w=5")
			.expectHeader()
			.valueEquals("RateLimit", "\"greeting-5s\";r=0;t=5")
			.expectBody(String.class)
			.isEqualTo("Hello, blocking");
		this.client.get()
			.uri("/blocking?key=blocking")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.valueEquals("Retry-After", "5")
			.expectHeader()
			.valueEquals("RateLimit", "\"greeting-5s\";r=0;t=5");
	}

	@Test
	void completableFutureFromAHandlerShouldCarryRateLimitThroughTheListener() {
		this.client.get()
			.uri("/future?key=future")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"greeting-5s\";q=1;w=5")
			.expectHeader()
			.valueEquals("RateLimit", "\"greeting-5s\";r=0;t=5")
			.expectBody(String.class)
			.isEqualTo("Hello, future");
		this.client.get()
			.uri("/future?key=future")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.valueEquals("Retry-After", "5");
	}

	@Test
	void functionalEndpointShouldCarryRateLimitAndAnswerARejectionWith429() {
		this.client.get()
			.uri("/functional?limiters=paced,paced&key=functional")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit", "\"paced-5s\";r=1;t=5, \"paced-60s\";r=8;t=60");
		this.client.get()
			.uri("/functional?limiters=greeting,paced,paced&key=functional")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectHeader()
			.valueEquals("Retry-After", "5")
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"greeting-5s\";q=1;w=5, \"paced-5s\";q=3;w=5, \"paced-60s\";q=10;w=60")
			.expectHeader()
			.valueEquals("RateLimit", "\"greeting-5s\";r=0;t=5, \"paced-5s\";r=0;t=5, \"paced-60s\";r=7;t=60")
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(429)
			.jsonPath("$.title")
			.isEqualTo("Too Many Requests")
			.jsonPath("$.detail")
			.isEqualTo("Rate limit 'paced' exceeded; retry after 5s")
			.jsonPath("$.instance")
			.isEqualTo("/functional")
			.jsonPath("$.limiter")
			.isEqualTo("paced")
			.jsonPath("$.retryAfterSeconds")
			.isEqualTo(5)
			.jsonPath("$.key")
			.doesNotExist();
	}

	@Test
	void otherFailuresOfAFunctionalEndpointShouldStayWithSpringBoot() {
		this.client.get()
			.uri("/functional-failure")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR)
			.expectHeader()
			.doesNotExist("Retry-After");
	}

	@Test
	void userExceptionHandlerShouldWin() {
		this.client.get().uri("/own?key=own").exchange().expectStatus().isOk();
		this.client.get()
			.uri("/own?key=own")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
			.expectHeader()
			.doesNotExist("Retry-After")
			.expectBody(String.class)
			.isEqualTo("busy: greeting");
	}

	@Test
	void annotatedMonoMethodShouldCarryRateLimitWhenAdmittedAndBe429WhenRejected() {
		this.client.get()
			.uri("/annotated-mono?key=reactive")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit", "\"greeting-5s\";r=0;t=5")
			.expectBody(String.class)
			.isEqualTo("Hello, reactive");
		this.client.get()
			.uri("/annotated-mono?key=reactive")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.valueEquals("Retry-After", "5")
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"greeting-5s\";q=1;w=5")
			.expectHeader()
			.valueEquals("RateLimit", "\"greeting-5s\";r=0;t=5");
	}

	@Test
	void rejectionOfAnEventStreamHandlerShouldBeAProblemDetailNotAnEvent() {
		// Spring MVC answers these with application/problem+json; the event stream's writer had set
		// text/event-stream before the rejection arrived (or would be chosen again by negotiation),
		// and the problem detail went out as an event, "data:{...}".
		for (String path : List.of("/events-blocking?key=events-blocking", "/events?key=events")) {
			this.client.get().uri(path).accept(MediaType.TEXT_EVENT_STREAM).exchange().expectStatus().isOk();
			this.client.get()
				.uri(path)
				.accept(MediaType.TEXT_EVENT_STREAM)
				.exchange()
				.expectStatus()
				.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
				.expectHeader()
				.contentType(MediaType.APPLICATION_PROBLEM_JSON)
				.expectHeader()
				.valueEquals("Retry-After", "5")
				.expectBody()
				.jsonPath("$.status")
				.isEqualTo(429)
				.jsonPath("$.limiter")
				.isEqualTo("greeting");
		}
	}

	@Test
	void rejectionAfterTheResponseStartedStreamingShouldEndItAndBeLoggedAsTheRejection(CapturedOutput output) {
		this.client.get().uri("/blocking?key=streamed").exchange().expectStatus().isOk();
		// "first" is out (200, committed) before the rejection: the connection is closed, as it can
		// no longer become a 429, and the failure logged is the rejection itself, not the
		// UnsupportedOperationException of a 429's header fields set on the committed response.
		assertThatException().isThrownBy(() -> this.client.get()
			.uri("/streamed?key=streamed")
			.accept(MediaType.TEXT_EVENT_STREAM)
			.exchange()
			.expectBody(String.class)
			.returnResult());
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(output).contains("/streamed?key=streamed\", but ServerHttpResponse already committed"));
		assertThat(output).contains("Error [" + RateLimitExceededException.class.getName() + ": Rate limiter 'greeting'")
			.doesNotContain("UnsupportedOperationException");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ TestTimeConfiguration.class, LimitedController.class, OwnController.class, OwnAdvice.class,
			GreetingService.class })
	static class TestApplication {

		@Bean
		RouterFunction<ServerResponse> functionalRoutes(RateLimiterRegistry registry) {
			return RouterFunctions.route()
				.GET("/functional", (request) -> ServerResponse.ok()
					.body(limited(registry, List.of(request.queryParam("limiters").orElseThrow().split(",")),
							request.queryParam("key").orElseThrow()), String.class))
				.GET("/functional-failure",
						(request) -> Mono.error(new IllegalStateException("not a rate limit")))
				.build();
		}

	}

	/**
	 * Calls limiters as the Reactor driver will: at subscription, on another thread, recording
	 * each admitting decision in the subscriber's context.
	 */
	static Mono<String> limited(RateLimiterRegistry registry, List<String> limiters, String key) {
		return Mono.deferContextual((context) -> {
			for (String limiter : limiters) {
				RateLimitDecision decision = registry.get(limiter).tryAcquire(key, 1);
				if (!decision.isPermitted()) {
					return Mono.<String>error(new RateLimitExceededException(decision));
				}
				context.<RateLimitDecisionRecorder>getOrEmpty(RateLimitDecisionRecorder.class)
					.ifPresent((recorder) -> recorder.record(decision));
			}
			return Mono.just("admitted " + limiters.size());
		}).subscribeOn(Schedulers.parallel());
	}

	@RestController
	static class LimitedController {

		private final RateLimiterRegistry registry;

		private final GreetingService service;

		LimitedController(RateLimiterRegistry registry, GreetingService service) {
			this.registry = registry;
			this.service = service;
		}

		@GetMapping("/mono")
		Mono<String> mono(@RequestParam List<String> limiters, @RequestParam String key) {
			return limited(this.registry, limiters, key);
		}

		@GetMapping("/unrecorded")
		Mono<String> unrecorded(@RequestParam String key) {
			return Mono.fromSupplier(() -> this.registry.get("greeting").tryAcquire(key, 1).isPermitted())
				.subscribeOn(Schedulers.parallel())
				.map((permitted) -> "permitted " + permitted);
		}

		@GetMapping("/blocking")
		String blocking(@RequestParam String key) {
			return this.service.greet(key);
		}

		@GetMapping("/annotated-mono")
		Mono<String> annotatedMono(@RequestParam String key) {
			return this.service.greetReactive(key);
		}

		@GetMapping(path = "/events-blocking", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
		Flux<String> eventsBlocking(@RequestParam String key) {
			return Flux.just(this.service.greet(key));
		}

		@GetMapping(path = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
		Flux<String> events(@RequestParam String key) {
			return this.service.greetEvents(key);
		}

		@GetMapping(path = "/streamed", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
		Flux<String> streamed(@RequestParam String key) {
			return Flux.concat(Mono.just("first"), Mono.fromSupplier(() -> this.service.greet(key)));
		}

		@GetMapping("/future")
		CompletableFuture<String> future(@RequestParam String key) {
			return this.service.greetLater(key);
		}

		@GetMapping("/nested")
		Mono<String> nested(@RequestParam String key) {
			return Mono.fromSupplier(() -> this.service.concurrent(key, () -> this.service.concurrent(key, () -> "inner")));
		}

	}

	@RestController
	static class OwnController {

		private final RateLimiterRegistry registry;

		OwnController(RateLimiterRegistry registry) {
			this.registry = registry;
		}

		@GetMapping("/own")
		Mono<String> own(@RequestParam String key) {
			return limited(this.registry, List.of("greeting"), key);
		}

	}

	@RestControllerAdvice(assignableTypes = OwnController.class)
	static class OwnAdvice {

		@ExceptionHandler(RateLimitExceededException.class)
		ResponseEntity<String> busy(RateLimitExceededException ex) {
			return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("busy: " + ex.getLimiterName());
		}

	}

	public static class GreetingService {

		@RateLimited(name = "greeting", key = "#key")
		public String greet(String key) {
			return "Hello, " + key;
		}

		@RateLimited(name = "greeting", key = "#key")
		public Mono<String> greetReactive(String key) {
			return Mono.just("Hello, " + key);
		}

		@RateLimited(name = "greeting", key = "#key")
		public Flux<String> greetEvents(String key) {
			return Flux.just("Hello", key);
		}

		@RateLimited(name = "greeting", key = "#key")
		public CompletableFuture<String> greetLater(String key) {
			return CompletableFuture.completedFuture("Hello, " + key);
		}

		@RateLimited(name = "concurrent", key = "#key")
		public String concurrent(String key, java.util.function.Supplier<String> body) {
			return body.get();
		}

	}

}
