package dev.resilience.autoconfigure.web;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
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
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import dev.resilience.pool.CheckoutTimeoutException;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.OperationTimeoutException;
import dev.resilience.pool.WithConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests the Spring WebFlux answers to a pool's timeouts over real HTTP, in a reactive Spring Boot
 * application whose auto-configuration comes from the starter's {@code AutoConfiguration.imports}:
 * {@code 503} for a checkout that timed out, {@code 504} for work that outlived its deadline, each
 * a problem detail naming the pool, from a handler method or a functional endpoint, no
 * {@code ERROR} in the log, and an application's own handler winning. Real time, kept short.
 */
@SpringBootTest(classes = PoolTimeoutWebFluxTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "resilience.pools.held.max-size=1",
				"resilience.pools.held.timeout=10s", "resilience.pools.slow.max-size=1" })
@ExtendWith(OutputCaptureExtension.class)
class PoolTimeoutWebFluxTests {

	@LocalServerPort
	private int port;

	@Autowired
	@Qualifier("held")
	private ConnectionPool<Object> held;

	private WebTestClient client;

	@BeforeEach
	void bindToServer() {
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + this.port)
			.responseTimeout(Duration.ofSeconds(10))
			.build();
	}

	@Test
	void applicationShouldBeReactiveWithWebFluxSupportOnly(@Autowired ApplicationContext context) {
		assertThat(context.getBeansOfType(PoolTimeoutWebFluxExceptionHandler.class)).hasSize(1);
		assertThat(context.getBeansOfType(PoolTimeoutWebExceptionHandler.class)).hasSize(1);
		assertThat(context.getBeansOfType(PoolTimeoutExceptionHandler.class)).isEmpty();
	}

	@Test
	void checkoutTimeoutShouldBe503WithProblemDetailNamingThePool(CapturedOutput output) throws Exception {
		for (String path : new String[] { "/checkout", "/fn/checkout" }) {
			whileTheOnlyConnectionIsHeld(() -> this.client.get()
				.uri(path)
				.exchange()
				.expectStatus()
				.isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
				.expectHeader()
				.contentType(MediaType.APPLICATION_PROBLEM_JSON)
				.expectHeader()
				.doesNotExist("Retry-After")
				.expectBody()
				.jsonPath("$.status")
				.isEqualTo(503)
				.jsonPath("$.title")
				.isEqualTo("Service Unavailable")
				.jsonPath("$.detail")
				.isEqualTo("No connection of pool 'held' became free within 200ms")
				.jsonPath("$.instance")
				.isEqualTo(path)
				.jsonPath("$.pool")
				.isEqualTo("held")
				.jsonPath("$.timeoutMillis")
				.isEqualTo(200));
		}
		PoolTimeoutMvcTests.assertNoErrorLogged(output);
	}

	@Test
	void operationTimeoutShouldBe504WithProblemDetailNamingThePool(CapturedOutput output) {
		for (String path : new String[] { "/operation", "/fn/operation" }) {
			this.client.get()
				.uri(path)
				.exchange()
				.expectStatus()
				.isEqualTo(HttpStatus.GATEWAY_TIMEOUT)
				.expectHeader()
				.contentType(MediaType.APPLICATION_PROBLEM_JSON)
				.expectBody()
				.jsonPath("$.status")
				.isEqualTo(504)
				.jsonPath("$.title")
				.isEqualTo("Gateway Timeout")
				.jsonPath("$.detail")
				.isEqualTo("Work with a connection of pool 'slow' did not finish within 200ms")
				.jsonPath("$.instance")
				.isEqualTo(path)
				.jsonPath("$.pool")
				.isEqualTo("slow")
				.jsonPath("$.timeoutMillis")
				.isEqualTo(200);
		}
		PoolTimeoutMvcTests.assertNoErrorLogged(output);
	}

	@Test
	void userExceptionHandlerShouldWin() throws Exception {
		whileTheOnlyConnectionIsHeld(() -> this.client.get()
			.uri("/own/checkout")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.TOO_MANY_REQUESTS)
			.expectBody(String.class)
			.isEqualTo("busy: held"));
		this.client.get()
			.uri("/own/operation")
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR)
			.expectBody(String.class)
			.isEqualTo("too slow: slow");
	}

	private void whileTheOnlyConnectionIsHeld(Runnable call) throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Object> holder = CompletableFuture
			.supplyAsync(() -> this.held.withConnection(Duration.ofSeconds(10), (connection) -> {
				entered.countDown();
				return release.await(10, TimeUnit.SECONDS);
			}));
		try {
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			call.run();
		}
		finally {
			release.countDown();
			holder.get(10, TimeUnit.SECONDS);
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ PooledController.class, OwnController.class, OwnAdvice.class, PooledService.class })
	static class TestApplication {

		@Bean
		RouterFunction<ServerResponse> pooledRoutes(PooledService service) {
			return RouterFunctions.route()
				.GET("/fn/checkout", (request) -> ok(service::quick))
				.GET("/fn/operation", (request) -> ok(service::slow))
				.build();
		}

		private static Mono<ServerResponse> ok(Supplier<Mono<String>> call) {
			return call.get().flatMap((body) -> ServerResponse.ok().bodyValue(body));
		}

	}

	@RestController
	static class PooledController {

		private final PooledService service;

		PooledController(PooledService service) {
			this.service = service;
		}

		@GetMapping("/checkout")
		Mono<String> checkout() {
			return this.service.quick();
		}

		@GetMapping("/operation")
		Mono<String> operation() {
			return this.service.slow();
		}

	}

	@RestController
	static class OwnController {

		private final PooledService service;

		OwnController(PooledService service) {
			this.service = service;
		}

		@GetMapping("/own/checkout")
		Mono<String> checkout() {
			return this.service.quick();
		}

		@GetMapping("/own/operation")
		Mono<String> operation() {
			return this.service.slow();
		}

	}

	@RestControllerAdvice(assignableTypes = OwnController.class)
	static class OwnAdvice {

		@ExceptionHandler(CheckoutTimeoutException.class)
		ResponseEntity<String> busy(CheckoutTimeoutException ex) {
			return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).body("busy: " + ex.getPool());
		}

		@ExceptionHandler(OperationTimeoutException.class)
		ResponseEntity<String> slow(OperationTimeoutException ex) {
			return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body("too slow: " + ex.getPool());
		}

	}

	public static class PooledService {

		@WithConnection(pool = "held", timeout = "200ms")
		public Mono<String> quick() {
			return Mono.just("quick");
		}

		@WithConnection(pool = "slow", timeout = "200ms")
		public Mono<String> slow() {
			return Mono.delay(Duration.ofSeconds(5)).map((tick) -> "slow");
		}

	}

}
