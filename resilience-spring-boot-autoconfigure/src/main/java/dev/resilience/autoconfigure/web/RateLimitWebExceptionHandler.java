package dev.resilience.autoconfigure.web;


import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;

import dev.resilience.ratelimit.RateLimitExceededException;

/**
 * Answers a {@link RateLimitExceededException} that no handler method answered, such as one a
 * functional endpoint ({@code RouterFunction}) or a web filter signals, with the same
 * {@code 429 Too Many Requests} as {@link RateLimitWebFluxExceptionHandler}: an
 * {@code application/problem+json} body and the {@code Retry-After}, {@code RateLimit-Policy}
 * and {@code RateLimit} header fields. Ordered just before Spring Boot's error handler, which
 * would make it a {@code 500}. An application's own {@code @ExceptionHandler}, or a router
 * function's {@code onError}, answers first.
 */
public class RateLimitWebExceptionHandler implements WebExceptionHandler, Ordered {

	/** The handler's order: just before Spring Boot's {@code ErrorWebExceptionHandler} ({@code -1}). */
	public static final int ORDER = -2;

	private final ProblemResponses problems;

	/**
	 * Creates a handler that writes the problem detail with the given codecs.
	 * @param codecs the application's codecs
	 */
	public RateLimitWebExceptionHandler(ServerCodecConfigurer codecs) {
		this.problems = new ProblemResponses(codecs);
	}

	@Override
	public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
		if (!(ex instanceof RateLimitExceededException rejection) || exchange.getResponse().isCommitted()) {
			return Mono.error(ex);
		}
		ResponseEntity<ProblemDetail> entity = RateLimitExceptionHandler.tooManyRequests(rejection,
				RateLimitExchangeDecisions.of(exchange).items());
		return this.problems.write(exchange, entity);
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
