package dev.resilience.autoconfigure.retry;

import java.time.Clock;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import dev.resilience.retry.RetryAfter;

/**
 * Reads the {@code Retry-After} header of Spring's HTTP client exceptions: a
 * {@link RestClientResponseException} ({@code RestClient}, {@code RestTemplate}) and, when
 * WebFlux is present, a {@link WebClientResponseException}. Both the seconds and the HTTP-date
 * forms are read, the date relative to the given clock.
 */
final class HttpRetryAfter implements RetryAfter {

	private static final boolean WEB_CLIENT_PRESENT = ClassUtils.isPresent(
			"org.springframework.web.reactive.function.client.WebClientResponseException",
			HttpRetryAfter.class.getClassLoader());

	private final Clock clock;

	private final boolean webClient;

	/**
	 * Creates the reader.
	 * @param clock the clock an HTTP-date is compared with
	 */
	public HttpRetryAfter(Clock clock) {
		this(clock, WEB_CLIENT_PRESENT);
	}

	HttpRetryAfter(Clock clock, boolean webClient) {
		this.clock = clock;
		this.webClient = webClient;
	}

	@Override
	public @Nullable Duration of(Throwable failure) {
		HttpHeaders headers = null;
		if (failure instanceof RestClientResponseException response) {
			headers = response.getResponseHeaders();
		}
		else if (this.webClient) {
			headers = WebClientHeaders.of(failure);
		}
		String value = (headers != null) ? headers.getFirst(HttpHeaders.RETRY_AFTER) : null;
		return (value != null) ? RetryAfter.parseHeader(value, this.clock) : null;
	}

	/** Loaded only when WebFlux is present. */
	private static final class WebClientHeaders {

		static @Nullable HttpHeaders of(Throwable failure) {
			return (failure instanceof WebClientResponseException response) ? response.getHeaders() : null;
		}

	}

}
