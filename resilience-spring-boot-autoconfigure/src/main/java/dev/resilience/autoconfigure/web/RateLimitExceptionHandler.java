package dev.resilience.autoconfigure.web;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.RequestContextHolder;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;

/**
 * Turns an uncaught {@link RateLimitExceededException} into {@code 429 Too Many Requests} with a
 * {@link ProblemDetail} body and the {@code Retry-After}, {@code RateLimit-Policy} and
 * {@code RateLimit} header fields. The rejecting decision's items replace those of the same
 * policies that calls admitted earlier in the request added; other limiters' items stay. Ordered
 * last, so an application's own {@code @ExceptionHandler} for the exception wins. The key is left
 * out of the body: it may be a customer id or an API key.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitExceptionHandler {

	/**
	 * Answers a rejected call.
	 * @param exception the rejection
	 * @return the 429 response
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	public ResponseEntity<ProblemDetail> handleRateLimitExceeded(RateLimitExceededException exception) {
		return tooManyRequests(exception, RateLimitHeaderItems.of(RequestContextHolder.getRequestAttributes()));
	}

	/**
	 * Builds the 429 response of a rejection, for Spring MVC and WebFlux alike.
	 * @param exception the rejection
	 * @param items the items that calls admitted earlier in the request recorded; the rejecting
	 * decision's items are merged into them
	 * @return the 429 response
	 */
	static ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException exception,
			RateLimitHeaderItems items) {
		RateLimitDecision decision = exception.getDecision();
		long retryAfterSeconds = RateLimitHeaders.seconds(exception.getRetryAfter());
		String retryAfter = Long.toString(retryAfterSeconds);
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS,
				"Rate limit '" + exception.getLimiterName() + "' exceeded; retry after " + retryAfter + " s");
		problem.setTitle("Too Many Requests");
		problem.setProperty("limiter", exception.getLimiterName());
		problem.setProperty("retryAfterSeconds", retryAfterSeconds);
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, retryAfter);
		items.merge(decision);
		if (!items.isEmpty()) {
			headers.set(RateLimitHeaders.POLICY, items.policy());
			headers.set(RateLimitHeaders.RATE_LIMIT, items.rateLimit());
		}
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).headers(headers).body(problem);
	}

}
