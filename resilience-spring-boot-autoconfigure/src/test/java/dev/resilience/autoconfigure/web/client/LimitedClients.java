package dev.resilience.autoconfigure.web.client;

import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;

import dev.resilience.autoconfigure.ResilienceAutoConfiguration;
import dev.resilience.autoconfigure.TestTimeConfiguration;
import dev.resilience.autoconfigure.ratelimit.RateLimiterAutoConfiguration;

/**
 * What the tests of requests through Boot's HTTP clients share: contexts whose client builders
 * our limits decorate, on the test's clock, and Reactor threads on which a blocking call fails.
 */
final class LimitedClients {

	private LimitedClients() {
	}

	/**
	 * Returns a runner of our rate limiters, their HTTP client decoration and Boot's HTTP client
	 * settings, on the test's clock, without any client's builder.
	 * @return the runner
	 */
	static ApplicationContextRunner limiters() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ResilienceAutoConfiguration.class,
					RateLimiterAutoConfiguration.class, HttpClientRateLimitAutoConfiguration.class,
					HttpClientAutoConfiguration.class))
			.withUserConfiguration(TestTimeConfiguration.class);
	}

	/**
	 * Returns {@link #limiters()} with Boot's {@code RestClient.Builder} and
	 * {@code RestTemplateBuilder}.
	 * @return the runner
	 */
	static ApplicationContextRunner restClients() {
		return limiters().withConfiguration(AutoConfigurations.of(ImperativeHttpClientAutoConfiguration.class,
				HttpMessageConvertersAutoConfiguration.class, RestClientAutoConfiguration.class,
				RestTemplateAutoConfiguration.class));
	}

	/**
	 * Returns {@link #limiters()} with Boot's {@code WebClient.Builder}.
	 * @return the runner
	 */
	static ApplicationContextRunner webClients() {
		return limiters().withConfiguration(AutoConfigurations.of(ReactiveHttpClientAutoConfiguration.class,
				CodecsAutoConfiguration.class, WebClientAutoConfiguration.class));
	}

	/** Installs BlockHound, once Reactor has loaded what it loads on its first subscription. */
	static void installBlockHound() {
		// Reactor looks for context propagation once, loading a class: done here, before
		// BlockHound watches, so that it is not reported on the first thread to subscribe.
		Mono.just(0).block();
		BlockHound.install();
	}

	/**
	 * Installs BlockHound, then starts Reactor parallel threads on which a blocking call fails.
	 * @param name the threads' name prefix
	 * @return the threads, for the test class to dispose of
	 */
	static Scheduler nonBlockingThreads(String name) {
		installBlockHound();
		// Started after BlockHound is installed: a scheduler thread already waiting for work while
		// BlockHound instruments the JDK can die of it (when an earlier test class in this JVM
		// started Reactor's shared parallel threads before installing it).
		return Schedulers.newParallel(name);
	}

}
