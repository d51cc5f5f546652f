package dev.resilience.autoconfigure.web.client;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

import dev.resilience.ratelimit.Permit;

/**
 * A response that returns its request's concurrency permit when it is closed, which the clients do
 * once they have read it (or given up on it): the call holds the permit until its answer ends. When
 * the limiter's {@code max-concurrent} is adaptive, a timeout while the body is read records a drop
 * on the permit first.
 */
final class PermitReleasingResponse implements ClientHttpResponse {

	private final ClientHttpResponse response;

	private final Permit permit;

	private final HttpClientRoute route;

	PermitReleasingResponse(ClientHttpResponse response, Permit permit, HttpClientRoute route) {
		this.response = response;
		this.permit = permit;
		this.route = route;
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
		InputStream body = this.response.getBody();
		return (this.route.limiter().getSettings().adaptiveConcurrency() != null) ? new DropReadingBody(body) : body;
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

	/** A body whose read that times out records a drop on the permit before the failure goes on. */
	private final class DropReadingBody extends FilterInputStream {

		DropReadingBody(InputStream body) {
			super(body);
		}

		@Override
		public int read() throws IOException {
			try {
				return super.read();
			}
			catch (IOException ex) {
				throw dropIfTimeout(ex);
			}
		}

		@Override
		public int read(byte[] bytes, int offset, int length) throws IOException {
			try {
				return super.read(bytes, offset, length);
			}
			catch (IOException ex) {
				throw dropIfTimeout(ex);
			}
		}

		@Override
		public long skip(long count) throws IOException {
			try {
				return super.skip(count);
			}
			catch (IOException ex) {
				throw dropIfTimeout(ex);
			}
		}

		private IOException dropIfTimeout(IOException failure) {
			if (PermitReleasingResponse.this.route.isDrop(failure)) {
				PermitReleasingResponse.this.permit.recordDrop();
			}
			return failure;
		}

	}

}
