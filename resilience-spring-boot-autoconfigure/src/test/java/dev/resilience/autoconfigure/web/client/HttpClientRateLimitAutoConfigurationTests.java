package dev.resilience.autoconfigure.web.client;

import java.net.URI;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

import dev.resilience.autoconfigure.Failures;
import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Tests which beans the HTTP clients' rate limits add, and the mistakes in
 * {@code resilience.rate-limiters.<name>.http-client} that stop startup naming the property.
 */
class HttpClientRateLimitAutoConfigurationTests {

	private static final String A = "resilience.rate-limiters.a.";

	private static final String B = "resilience.rate-limiters.b.";

	private static final String[] CUSTOMIZERS = { "resilienceRateLimitingRestClientCustomizer",
			"resilienceRateLimitingRestTemplateCustomizer", "resilienceRateLimitingWebClientCustomizer" };

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class, RateLimiterAutoConfiguration.class,
				HttpClientRateLimitAutoConfiguration.class))
		.withPropertyValues(A + "max-concurrent=5", B + "max-concurrent=5");

	@Test
	void runWhenNoLimiterListsHostsShouldAddNothing() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(HttpClientRoutes.class);
			assertThat(context).doesNotHaveBean(RateLimitingRequestInterceptor.class)
				.doesNotHaveBean(RateLimitingExchangeFilter.class);
			for (String customizer : CUSTOMIZERS) {
				assertThat(context).doesNotHaveBean(customizer);
			}
		});
	}

	@Test
	void runWhenALimiterListsHostsShouldAddTheCustomizersOfEachClient() {
		this.contextRunner.withPropertyValues(A + "http-client.hosts=api.example.com").run((context) -> {
			assertThat(context).hasSingleBean(HttpClientRoutes.class)
				.hasSingleBean(RateLimitingRequestInterceptor.class)
				.hasSingleBean(RateLimitingExchangeFilter.class);
			assertThat(context.getBean(CUSTOMIZERS[0])).isInstanceOf(RestClientCustomizer.class);
			assertThat(context.getBean(CUSTOMIZERS[1])).isInstanceOf(org.springframework.boot.restclient.RestTemplateCustomizer.class);
			assertThat(context.getBean(CUSTOMIZERS[2])).isInstanceOf(WebClientCustomizer.class);
		});
	}

	@Test
	void runWithoutWebClientShouldDecorateTheOtherClientsOnly() {
		this.contextRunner.withPropertyValues(A + "http-client.hosts=api.example.com")
			.withClassLoader(new FilteredClassLoader(WebClient.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitingRequestInterceptor.class)
					.doesNotHaveBean(RateLimitingExchangeFilter.class)
					.hasBean(CUSTOMIZERS[0])
					.hasBean(CUSTOMIZERS[1])
					.doesNotHaveBean(CUSTOMIZERS[2]);
			});
	}

	@Test
	void runWithoutRestClientSupportShouldDecorateWebClientOnly() {
		this.contextRunner.withPropertyValues(A + "http-client.hosts=api.example.com")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.restclient"))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RateLimitingRequestInterceptor.class)
					.hasSingleBean(RateLimitingExchangeFilter.class)
					.doesNotHaveBean(CUSTOMIZERS[0])
					.doesNotHaveBean(CUSTOMIZERS[1])
					.hasBean(CUSTOMIZERS[2]);
			});
	}

	@Test
	void runWithoutRestTemplateShouldDecorateRestClient() {
		this.contextRunner.withPropertyValues(A + "http-client.hosts=api.example.com")
			.withClassLoader(new FilteredClassLoader(RestTemplate.class))
			.run((context) -> assertThat(context).hasBean(CUSTOMIZERS[0]).doesNotHaveBean(CUSTOMIZERS[1]));
	}

	@Test
	void runWithAUsersOwnCustomizerOfTheSameNameShouldKeepIt() {
		RestClientCustomizer own = (builder) -> {
		};
		this.contextRunner.withPropertyValues(A + "http-client.hosts=api.example.com")
			.withBean(CUSTOMIZERS[0], RestClientCustomizer.class, () -> own)
			.run((context) -> assertThat(context.getBean(CUSTOMIZERS[0])).isSameAs(own));
	}

	static Stream<Arguments> mistakes() {
		return Stream.of(
				arguments("a key that does not parse",
						List.of(A + "http-client.hosts=api.example.com", A + "http-client.key=#request.headers.("),
						A + "http-client.key '#request.headers.(' does not parse: "),
				arguments("a key without hosts", List.of(A + "http-client.key=#request.URI.path"),
						A + "http-client.key is set, but " + A + "http-client.hosts is empty"),
				arguments("a host under two limiters",
						List.of(A + "http-client.hosts=api.example.com,other.example.com",
								B + "http-client.hosts=OTHER.example.com"),
						B + "http-client.hosts lists other.example.com, which " + A
								+ "http-client.hosts lists too; a host's requests are under one limiter only"),
				arguments("a URL instead of a host", List.of(A + "http-client.hosts=https://api.example.com"),
						A + "http-client.hosts must hold host names, such as api.example.com, without scheme, port "
								+ "or path, but held 'https://api.example.com'"),
				arguments("a host with a port", List.of(A + "http-client.hosts=cafe.de:8443"),
						A + "http-client.hosts must hold host names"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("mistakes")
	void runWhenMisconfiguredShouldFailNamingTheProperty(String mistake, List<String> properties, String start) {
		this.contextRunner.withPropertyValues(properties.toArray(String[]::new)).run(Failures.startupFailedWith(start));
	}

	@Test
	void runWithIpAddressesShouldRouteTheirRequests() {
		this.contextRunner.withPropertyValues(A + "http-client.hosts=127.0.0.1,[::1],FE80::1").run((context) -> {
			HttpClientRoutes routes = context.getBean(HttpClientRoutes.class);
			assertThat(routes.route(URI.create("http://127.0.0.1:8080/orders"))).isNotNull();
			assertThat(routes.route(URI.create("http://[::1]:8080/orders"))).isNotNull();
			assertThat(routes.route(URI.create("https://[fe80::1]/orders"))).isNotNull();
			assertThat(routes.route(URI.create("http://127.0.0.2/orders"))).isNull();
		});
	}

	@Test
	void runWhenNoClientCouldBeDecoratedShouldFailNamingTheHosts() {
		this.contextRunner.withPropertyValues(A + "http-client.hosts=api.example.com")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.restclient",
					"org.springframework.boot.webclient"))
			.run(Failures.startupFailedWith(
					A + "http-client.hosts needs Spring Boot's RestClient, RestTemplate or WebClient support"));
	}

}
