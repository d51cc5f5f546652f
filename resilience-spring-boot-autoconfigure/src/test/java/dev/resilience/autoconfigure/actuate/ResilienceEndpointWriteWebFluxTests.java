package dev.resilience.autoconfigure.actuate;

import java.time.Duration;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.startsWith;

/**
 * Tests the {@code resilience} endpoint's write operation in a WebFlux application over real HTTP,
 * with BlockHound: the documented body (docs/runtime-changes.md) reaches the operation through
 * {@link ResilienceWriteBodyWebFilter}, read without blocking the event loop.
 */
@SpringBootTest(classes = ResilienceEndpointWriteWebFluxTests.TestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive",
				"management.endpoints.web.exposure.include=resilience",
				"management.endpoint.resilience.access=unrestricted",
				"resilience.rate-limiters.partner.windows[0].limit=3",
				"resilience.rate-limiters.partner.windows[0].period=1h" })
class ResilienceEndpointWriteWebFluxTests {

	@LocalServerPort
	private int port;

	@BeforeAll
	static void installBlockHound() {
		BlockHound.install();
	}

	@Test
	void postShouldChangeALimitAndRefuseAWrongOne(@Autowired RateLimiterRegistry registry) {
		WebTestClient client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + this.port)
			// The first request warms a cold server up: five seconds were too few on a loaded machine.
			.responseTimeout(Duration.ofSeconds(30))
			.build();
		RateLimiter limiter = registry.get("partner");
		assertThat(permitted(limiter, 4)).isEqualTo(3);
		client.post()
			.uri("/actuator/resilience/partner")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"properties\": {\"windows[0].limit\": \"5\"}}")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.settings.windows[0].limit")
			.isEqualTo(5);
		assertThat(permitted(limiter, 4)).isEqualTo(2);
		client.post()
			.uri("/actuator/resilience/partner")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"properties\": {\"windows[0].limit\": \"-1\"}}")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.error")
			.value(startsWith("resilience.rate-limiters.partner"));
		assertThat(limiter.getSettings().windows().get(0).limit()).isEqualTo(5);
	}

	private static int permitted(RateLimiter limiter, int calls) {
		int permitted = 0;
		for (int i = 0; i < calls; i++) {
			if (limiter.tryAcquire("", 1).isPermitted()) {
				permitted++;
			}
		}
		return permitted;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class TestApplication {

	}

}
