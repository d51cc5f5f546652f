package dev.resilience.autoconfigure.web.client;

import java.io.IOException;
import java.io.InputStream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

import dev.resilience.ratelimit.Permit;

/**
 * A response that returns its request's concurrency permit when it is closed, which the clients do
 * once they have read it (or given up on it): the call holds the permit until its answer ends.
 */
final class PermitReleasingResponse implements ClientHttpResponse {

	private final ClientHttpResponse response;

	private final Permit permit;

	PermitReleasingResponse(ClientHttpResponse response, Permit permit) {
		this.response = response;
		this.permit = permit;
	}

	@Override
	public HttpStatusCode getStatusCode() throws IOException {
		return this.response.getStatusCode();
	}

	@Override
	public String getStatusText() throws IOException {
		return this.response.getStatusText();
	}

	@Override
	public HttpHeaders getHeaders() {
		return this.response.getHeaders();
	}

	@Override
	public InputStream getBody() throws IOException {
		return this.response.getBody();
	}

	@Override
	public void close() {
		try {
			this.response.close();
		}
		finally {
			// idempotent: a response closed twice returns the permit once
			this.permit.close();
		}
	}

}
