package dev.resilience.autoconfigure.retry;

import java.time.Clock;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.util.ClassUtils;

import dev.resilience.autoconfigure.support.HttpAnswers;
import dev.resilience.retry.RetryAfter;

/**
 * Reads the {@code Retry-After} header of Spring's HTTP client exceptions (see
 * {@link HttpAnswers}). Both the seconds and the HTTP-date forms are read, the date relative to
 * the given clock.
 */
final class HttpRetryAfter implements RetryAfter {

	private final Clock clock;

	private final boolean webClient;

	/**
	 * Creates the reader, looking at WebFlux's exceptions when WebFlux is present.
	 * @param clock the clock an HTTP-date is compared with
	 */
	HttpRetryAfter(Clock clock) {
		this(clock, ClassUtils.isPresent("org.springframework.web.reactive.function.client.WebClientResponseException",
				HttpRetryAfter.class.getClassLoader()));
	}

	HttpRetryAfter(Clock clock, boolean webClient) {
		this.clock = clock;
		this.webClient = webClient;
	}

	@Override
	public @Nullable Duration of(Throwable failure) {
		HttpAnswers.Answer answer = HttpAnswers.of(failure, this.webClient);
		String value = (answer != null) ? answer.field(HttpHeaders.RETRY_AFTER) : null;
		return (value != null) ? RetryAfter.parseHeader(value, this.clock) : null;
	}

}
