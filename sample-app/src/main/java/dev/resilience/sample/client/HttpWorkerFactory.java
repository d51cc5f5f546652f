package dev.resilience.sample.client;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

import dev.resilience.pool.ConnectionFactory;

/**
 * Makes the {@link HttpWorker}s of the pool {@code partner-workers}
 * ({@code resilience.pools.partner-workers.factory=httpWorkers}). A worker whose call timed out
 * is destroyed once its request gives up, and replaced.
 */
@Component("httpWorkers")
public class HttpWorkerFactory implements ConnectionFactory<HttpWorker> {

	private final RestClient.Builder restClientBuilder;

	private final Environment environment;

	private final AtomicInteger created = new AtomicInteger();

	public HttpWorkerFactory(RestClient.Builder restClientBuilder, Environment environment) {
		this.restClientBuilder = restClientBuilder;
		this.environment = environment;
	}

	@Override
	public HttpWorker create() {
		// The partner API is served by this same application, on the port it was given at startup.
		String baseUrl = this.environment.getProperty("sample.partner.base-url",
				"http://localhost:" + this.environment.getRequiredProperty("local.server.port"));
		return new HttpWorker(this.created.incrementAndGet(), this.restClientBuilder.clone().baseUrl(baseUrl).build());
	}

}
