package dev.resilience.autoconfigure;

import java.time.Duration;

import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Clients of the tests' local partners (a {@code com.sun.net.httpserver} on a loopback port). The
 * JDK {@code HttpClient} behind {@code RestClient.create} hung for good on JDK 25 reading a 429's
 * body ({@code SubscriberInputStream.read}), once in {@code HttpRetryAfterTests} and once in CI's
 * {@code FleetPauseTests}; {@code HttpURLConnection} with a timeout fails that call instead.
 */
public final class LocalRestClients {

	private LocalRestClients() {
	}

	/**
	 * Returns a client of a local partner with 10 s connect and read timeouts.
	 * @param baseUrl the partner's base URL
	 * @return the client
	 */
	public static RestClient withTimeouts(String baseUrl) {
		SimpleClientHttpRequestFactory requests = new SimpleClientHttpRequestFactory();
		requests.setConnectTimeout(Duration.ofSeconds(10));
		requests.setReadTimeout(Duration.ofSeconds(10));
		return RestClient.builder().baseUrl(baseUrl).requestFactory(requests).build();
	}

}
