package dev.resilience.autoconfigure.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;

/**
 * Tests, over real HTTP on Reactor Netty, when a WebFlux {@code Flux} response can still become a
 * {@code 429}: WebFlux writes a {@code Flux} item by item (a JSON array too, unlike Spring MVC,
 * which collects it), so the response commits at its first element. Every limiter decided before
 * that element gives the same {@code 429} as MVC ({@link RateLimitMvcFluxTests}); a limiter that
 * rejects after it ends the response abortively, and the client's read fails instead of seeing a
 * complete {@code 200} whose body was cut short. The clock stands still; each test has its own key.
 */
@SpringBootTest(classes = RateLimitWebFluxStreamingTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive",
				"resilience.rate-limiters.wide.windows[0].limit=10", "resilience.rate-limiters.wide.windows[0].period=5s",
				"resilience.rate-limiters.narrow.windows[0].limit=1",
				"resilience.rate-limiters.narrow.windows[0].period=5s",
				"resilience.rate-limiters.per-item.windows[0].limit=2",
				"resilience.rate-limiters.per-item.windows[0].period=5s" })
@ExtendWith(OutputCaptureExtension.class)
class RateLimitWebFluxStreamingTests {

	@LocalServerPort
	private int port;

	@Autowired
	private ItemService service;

	private WebTestClient client;

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	@BeforeEach
	void bindToServer() {
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + this.port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@Test
	void jsonFluxWhoseSecondLimiterRejectsShouldBe429AsInMvc() {
		// Both limiters of the method decide when the Flux is subscribed, before its first item.
		this.client.get()
			.uri("/two?key=two")
			.exchange()
			.expectStatus()
			.isOk()
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"wide-5s\";q=10;w=5, \"narrow-5s\";q=1;w=5")
			.expectHeader()
			.valueEquals("RateLimit", "\"wide-5s\";r=9;t=5, \"narrow-5s\";r=0;t=5")
			.expectBody(String.class)
			.isEqualTo("[{\"name\":\"a\"},{\"name\":\"b\"}]");
		// All or nothing: the rejected call gave back what "wide" reserved, which decided nothing.
		this.client.get()
			.uri("/two?key=two")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectHeader()
			.valueEquals("Retry-After", "5")
			.expectHeader()
			.valueEquals("RateLimit-Policy", "\"narrow-5s\";q=1;w=5")
			.expectHeader()
			.valueEquals("RateLimit", "\"narrow-5s\";r=0;t=5")
			.expectBody()
			.jsonPath("$.limiter")
			.isEqualTo("narrow");
	}

	@Test
	void jsonFluxWhoseLaterLimiterRejectsAfterItsFirstItemShouldFailTheClientsRead() throws Exception {
		// "narrow" decides when the second Flux is subscribed, after "wide"'s items went out.
		HttpResponse<String> admitted = send("/concat?key=concat", MediaType.APPLICATION_JSON);
		assertThat(admitted.statusCode()).isEqualTo(200);
		assertThat(admitted.body()).isEqualTo("[{\"name\":\"w1\"},{\"name\":\"w2\"},{\"name\":\"n\"}]");
		// Committed at the first item: the later limiter's decision is not in the header fields.
		assertThat(admitted.headers().allValues("RateLimit")).containsExactly("\"wide-5s\";r=9;t=5");
		assertReadFails("/concat?key=concat", MediaType.APPLICATION_JSON);
	}

	@Test
	void streamingFluxWhoseLimiterRejectsAfterItsFirstElementShouldFailTheClientsRead() {
		// NDJSON: each item is decided when the one before it went out; the third is rejected.
		assertReadFails("/ndjson?key=ndjson", MediaType.APPLICATION_NDJSON);
	}

	@Test
	void jsonFluxRetriedAfterItsFirstItemWhoseLimiterRejectsShouldFailTheClientsRead(CapturedOutput output) {
		// The first attempt is admitted, writes its item and fails; the retry's subscription is rejected.
		assertReadFails("/retried?key=retried", MediaType.APPLICATION_JSON);
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(output).contains("Error [" + RateLimitExceededException.class.getName()
					+ ": Rate limiter 'narrow' rejected the call; retry after 5s] for HTTP GET \"/retried?key=retried\", but ServerHttpResponse already committed (200 OK)"));
		assertThat(this.service.attempts()).isEqualTo(1);
	}

	@Test
	void functionalEndpointsJsonFluxWhoseLaterLimiterRejectsShouldFailTheClientsRead() throws Exception {
		assertThat(send("/functional-concat?key=functional", MediaType.APPLICATION_JSON).statusCode()).isEqualTo(200);
		assertReadFails("/functional-concat?key=functional", MediaType.APPLICATION_JSON);
	}

	@Test
	void streamingFluxRejectedBeforeItsFirstElementShouldBe429() {
		this.client.get()
			.uri("/ndjson-narrow?key=ndjson-narrow")
			.accept(MediaType.APPLICATION_NDJSON)
			.exchange()
			.expectStatus()
			.isOk();
		this.client.get()
			.uri("/ndjson-narrow?key=ndjson-narrow")
			.accept(MediaType.APPLICATION_NDJSON)
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectHeader()
			.valueEquals("RateLimit", "\"narrow-5s\";r=0;t=5");
	}

	/** Asserts that the client's read fails because the response ended before its end, not by a timeout. */
	private void assertReadFails(String path, MediaType accept) {
		assertThatIOException().isThrownBy(() -> send(path, accept)).isNotInstanceOf(HttpTimeoutException.class);
	}

	/** Reads the whole response as a plain HTTP client does; a response cut short fails the read. */
	private HttpResponse<String> send(String path, MediaType accept) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.header("Accept", accept.toString())
			.timeout(Duration.ofSeconds(30))
			.build();
		return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ TestTimeConfiguration.class, ItemController.class, ItemService.class })
	static class TestApplication {

		@Bean
		RouterFunction<ServerResponse> functionalRoutes(ItemService service) {
			return RouterFunctions.route()
				.GET("/functional-concat", (request) -> {
					String key = request.queryParam("key").orElseThrow();
					return ServerResponse.ok()
						.contentType(MediaType.APPLICATION_JSON)
						.body(service.wide(key).concatWith(service.narrow(key)), Item.class);
				})
				.build();
		}

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
		Flux<Item> two(@RequestParam String key) {
			return this.service.two(key);
		}

		@GetMapping(path = "/concat", produces = MediaType.APPLICATION_JSON_VALUE)
		Flux<Item> concat(@RequestParam String key) {
			return this.service.wide(key).concatWith(this.service.narrow(key));
		}

		@GetMapping(path = "/ndjson", produces = MediaType.APPLICATION_NDJSON_VALUE)
		Flux<Item> ndjson(@RequestParam String key) {
			return Flux.just("x", "y", "z").concatMap((name) -> this.service.item(key, name));
		}

		@GetMapping(path = "/retried", produces = MediaType.APPLICATION_JSON_VALUE)
		Flux<Item> retried(@RequestParam String key) {
			return this.service.retried(key);
		}

		@GetMapping(path = "/ndjson-narrow", produces = MediaType.APPLICATION_NDJSON_VALUE)
		Flux<Item> ndjsonNarrow(@RequestParam String key) {
			return this.service.narrow(key);
		}

	}

	public static class ItemService {

		private final AtomicInteger attempts = new AtomicInteger();

		public int attempts() {
			return this.attempts.get();
		}

		@Retryable(maxRetries = 1, delay = "1ms")
		@RateLimited(name = "narrow", key = "#key")
		public Flux<Item> retried(String key) {
			return Flux.concat(Mono.fromSupplier(() -> new Item("r" + this.attempts.incrementAndGet())),
					Mono.error(new IllegalStateException("failed after its first item")));
		}

		@RateLimited(name = "wide", key = "#key")
		@RateLimited(name = "narrow", key = "#key")
		public Flux<Item> two(String key) {
			return Flux.just(new Item("a"), new Item("b"));
		}

		@RateLimited(name = "wide", key = "#key")
		public Flux<Item> wide(String key) {
			return Flux.just(new Item("w1"), new Item("w2"));
		}

		@RateLimited(name = "narrow", key = "#key")
		public Flux<Item> narrow(String key) {
			return Flux.just(new Item("n"));
		}

		@RateLimited(name = "per-item", key = "#key")
		public Mono<Item> item(String key, String name) {
			return Mono.just(new Item(name));
		}

	}

}
