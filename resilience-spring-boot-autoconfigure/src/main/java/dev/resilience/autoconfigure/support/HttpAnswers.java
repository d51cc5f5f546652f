package dev.resilience.autoconfigure.support;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.util.ClassUtils;
import org.springframework.web.ErrorResponse;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * The partner's answer carried by Spring's HTTP exceptions: a {@link RestClientResponseException}
 * ({@code RestClient}, {@code RestTemplate}), a {@link WebClientResponseException} when WebFlux is
 * present, or any {@link ErrorResponse}. Loaded only when Spring Web is present.
 */
public final class HttpAnswers {

	private static final boolean WEB_CLIENT_PRESENT = ClassUtils.isPresent(
			"org.springframework.web.reactive.function.client.WebClientResponseException",
			HttpAnswers.class.getClassLoader());

	private HttpAnswers() {
	}

	/**
	 * Returns the answer one exception carries.
	 * @param failure the exception (not its causes)
	 * @return the answer, or {@code null} when it is not one of Spring's HTTP exceptions
	 */
	public static @Nullable Answer of(Throwable failure) {
		return of(failure, WEB_CLIENT_PRESENT);
	}

	/**
	 * Returns the answer one exception carries.
	 * @param failure the exception (not its causes)
	 * @param webClient whether WebFlux's exceptions may be looked at
	 * @return the answer, or {@code null} when it is not one of Spring's HTTP exceptions
	 */
	public static @Nullable Answer of(Throwable failure, boolean webClient) {
		if (failure instanceof RestClientResponseException response) {
			return new Answer(response.getStatusCode().value(), headers(response.getResponseHeaders()));
		}
		if (webClient) {
			Answer answer = WebClientAnswers.of(failure);
			if (answer != null) {
				return answer;
			}
		}
		if (failure instanceof ErrorResponse response) {
			return new Answer(response.getStatusCode().value(), response.getHeaders());
		}
		return null;
	}

	private static HttpHeaders headers(@Nullable HttpHeaders headers) {
		return (headers != null) ? headers : HttpHeaders.EMPTY;
	}

	/**
	 * A partner's answer: its status and header fields.
	 *
	 * @param status the HTTP status
	 * @param headers the header fields
	 */
	public record Answer(int status, HttpHeaders headers) {

		/**
		 * Returns the first value of a header field.
		 * @param name the field's name, in any case
		 * @return the value, or {@code null} when absent
		 */
		public @Nullable String field(String name) {
			return this.headers.getFirst(name);
		}

	}

	/** Loaded only when WebFlux is present. */
	private static final class WebClientAnswers {

		static @Nullable Answer of(Throwable failure) {
			return (failure instanceof WebClientResponseException response)
					? new Answer(response.getStatusCode().value(), response.getHeaders()) : null;
		}

	}

}
