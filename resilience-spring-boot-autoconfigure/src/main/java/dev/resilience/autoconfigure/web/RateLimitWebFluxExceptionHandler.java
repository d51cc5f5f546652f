package dev.resilience.autoconfigure.web;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ServerWebExchange;

import dev.resilience.ratelimit.RateLimitExceededException;

/**
 * Turns a {@link RateLimitExceededException} that a WebFlux handler throws or signals into the
 * same {@code 429 Too Many Requests} as {@link RateLimitExceptionHandler} does in Spring MVC: a
 * {@link ProblemDetail} body and the {@code Retry-After}, {@code RateLimit-Policy} and
 * {@code RateLimit} header fields, the rejecting decision's items replacing those of the same
 * policies that the exchange's admitted calls recorded. Ordered last, so an application's own
 * {@code @ExceptionHandler} for the exception wins.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitWebFluxExceptionHandler {

	/**
	 * Answers a rejected call.
	 * A rejection after the response committed is thrown again.
	 * @param exception the rejection
	 * @param exchange the exchange that made the call
	 * @return the 429 response
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	public ResponseEntity<ProblemDetail> handleRateLimitExceeded(RateLimitExceededException exception,
			ServerWebExchange exchange) {
		if (exchange.getResponse().isCommitted()) {
			// A streamed response whose first part went out cannot become a 429: its header fields
			// are read-only now. The rejection goes on, so that it is what WebFlux reports.
			throw exception;
		}
		ResponseEntity<ProblemDetail> entity = RateLimitExceptionHandler.tooManyRequests(exception,
				RateLimitExchangeDecisions.of(exchange).items());
		// Named, not negotiated: a streaming handler's writer (text/event-stream) may have set the
		// response's content type before the rejection arrived, and negotiation would keep it, or
		// choose the event stream again for a client that accepts only that; Spring MVC answers
		// application/problem+json there, as does RateLimitWebExceptionHandler.
		return ResponseEntity.status(entity.getStatusCode())
			.headers(entity.getHeaders())
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(entity.getBody());
	}

}
