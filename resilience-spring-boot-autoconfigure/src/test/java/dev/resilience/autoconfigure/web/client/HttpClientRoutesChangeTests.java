package dev.resilience.autoconfigure.web.client;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;

import dev.resilience.autoconfigure.actuate.ResilienceEndpoint;
import dev.resilience.autoconfigure.actuate.ResilienceEndpointAutoConfiguration;
import dev.resilience.autoconfigure.refresh.ResilienceSettingsAutoConfiguration;
import dev.resilience.autoconfigure.refresh.ResilienceSettingsUpdater;
import dev.resilience.ratelimit.RateLimitExceededException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests {@code http-client.hosts} and {@code http-client.key} changed at run time, as
 * {@code POST /actuator/resilience/{name}} and Spring Cloud's refresh change them (through the
 * {@link ResilienceSettingsUpdater}): the requests after a change follow it, and a change that is
 * refused, for any of the limiter's properties, is never seen by one.
 */
class HttpClientRoutesChangeTests {

	private static final String PARTNER = "resilience.rate-limiters.partner.";

	private static final String OTHER = "resilience.rate-limiters.other.";

	@AutoClose
	private final PartnerServer partner = new PartnerServer();

	private final ApplicationContextRunner contextRunner = LimitedClients.limiters()
		.withConfiguration(AutoConfigurations.of(ImperativeHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, ResilienceSettingsAutoConfiguration.class))
		.withPropertyValues(PARTNER + "windows[0].limit=1", PARTNER + "windows[0].period=1m",
				OTHER + "max-concurrent=5", OTHER + "http-client.hosts=other.example.com");

	@Test
	void changedHostsApplyFromTheNextRequest() {
		this.contextRunner.withPropertyValues(PARTNER + "http-client.hosts=localhost").run((context) -> {
			context.getBean(ResilienceSettingsUpdater.class).update("partner", Map.of("http-client.hosts", "127.0.0.1"));
			assertThat(limited(context, "localhost", 3)).isZero();
			assertThat(limited(context, "127.0.0.1", 3)).isEqualTo(2);
			context.getBean(ResilienceSettingsUpdater.class).update("partner", Map.of("http-client.hosts", ""));
			assertThat(limited(context, "127.0.0.1", 3)).isZero();
		});
	}

	@Test
	void theEndpointShowsTheHostsAndKeyInForceAfterAChange() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(ResilienceEndpointAutoConfiguration.class))
			.withPropertyValues(PARTNER + "http-client.hosts=localhost", "management.endpoints.web.exposure.include=resilience")
			.run((context) -> {
				ResilienceEndpoint endpoint = context.getBean(ResilienceEndpoint.class);
				assertThat(endpoint.resilience().rateLimiters().get("partner").httpClient())
					.isEqualTo(new ResilienceEndpoint.HttpClientDescriptor(List.of("localhost"), null));
				context.getBean(ResilienceSettingsUpdater.class)
					.update("partner", Map.of("http-client.hosts", "127.0.0.1,Example.COM", "http-client.key",
							"#request.URI.path"));
				assertThat(endpoint.resilience().rateLimiters().get("partner").httpClient()).isEqualTo(
						new ResilienceEndpoint.HttpClientDescriptor(List.of("127.0.0.1", "example.com"), "#request.URI.path"));
				assertThat(endpoint.resilience().rateLimiters().get("other").httpClient())
					.isEqualTo(new ResilienceEndpoint.HttpClientDescriptor(List.of("other.example.com"), null));
			});
	}

	@Test
	void aChangedKeyAppliesFromTheNextRequest() {
		this.contextRunner.withPropertyValues(PARTNER + "http-client.hosts=localhost").run((context) -> {
			context.getBean(ResilienceSettingsUpdater.class)
				.update("partner", Map.of("http-client.key", "#request.URI.path"));
			RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.partner.url("localhost")).build();
			client.get().uri("/a").retrieve().body(String.class);
			client.get().uri("/b").retrieve().body(String.class);
			assertThatExceptionOfType(RateLimitExceededException.class)
				.isThrownBy(() -> client.get().uri("/a").retrieve().body(String.class))
				.satisfies((ex) -> assertThat(ex.getKey()).isEqualTo("/a"));
		});
	}

	@Test
	void aRefusedChangeOfTheRoutesIsNeverLive() {
		this.contextRunner.withPropertyValues(PARTNER + "http-client.hosts=localhost").run((context) -> {
			ResilienceSettingsUpdater updater = context.getBean(ResilienceSettingsUpdater.class);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("partner",
						Map.of("http-client.hosts", "127.0.0.1", "http-client.key", "#request.(")))
				.withMessageStartingWith(PARTNER + "http-client.key '#request.(' does not parse");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("partner", Map.of("http-client.hosts", "127.0.0.1,other.example.com")))
				.withMessage(PARTNER + "http-client.hosts lists other.example.com, which " + OTHER
						+ "http-client.hosts lists too; a host's requests are under one limiter only");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> updater.update("partner", Map.of("http-client.hosts", "127.0.0.1:8080")))
				.withMessageStartingWith(PARTNER + "http-client.hosts must hold host names");
			assertThat(limited(context, "127.0.0.1", 3)).isZero();
			assertThat(limited(context, "localhost", 3)).isEqualTo(2);
		});
	}

	@Test
	void aRefusedChangeOfTheSettingsLeavesTheRoutesAsTheyWere() {
		this.contextRunner.withPropertyValues(PARTNER + "http-client.hosts=localhost").run((context) -> {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> context.getBean(ResilienceSettingsUpdater.class)
					.update("partner", Map.of("http-client.hosts", "127.0.0.1", "windows[0].limit", "0")))
				.withMessageStartingWith(PARTNER + "windows[0].limit must be positive");
			assertThat(limited(context, "127.0.0.1", 3)).isZero();
			assertThat(limited(context, "localhost", 3)).isEqualTo(2);
		});
	}

	@Test
	void hostsCannotBeSetAtRunTimeWhenNoLimiterHadThemAtStartup() {
		this.contextRunner.withPropertyValues(OTHER + "http-client.hosts=").run((context) -> {
			assertThat(context).doesNotHaveBean(HttpClientRoutes.class);
			assertThatIllegalArgumentException()
				.isThrownBy(() -> context.getBean(ResilienceSettingsUpdater.class)
					.update("partner", Map.of("http-client.hosts", "localhost")))
				.withMessageStartingWith(PARTNER + "http-client.hosts cannot be set at run time, as no rate limiter had "
						+ "http-client hosts when the application started");
			assertThat(limited(context, "localhost", 3)).isZero();
		});
	}

	/** Sends requests through a host, and counts those the limiter rejected. */
	private int limited(AssertableApplicationContext context, String host, int requests) {
		RestClient client = context.getBean(RestClient.Builder.class).baseUrl(this.partner.url(host)).build();
		int rejected = 0;
		for (int i = 0; i < requests; i++) {
			try {
				client.get().uri("/orders").retrieve().body(String.class);
			}
			catch (RateLimitExceededException ex) {
				rejected++;
			}
		}
		return rejected;
	}

}
