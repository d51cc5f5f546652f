package dev.resilience.autoconfigure.web;

import java.time.Duration;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.util.Assert;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.RequestContextHolder;

import dev.resilience.internal.DurationText;
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
	 * Answers a rejected call: the 429 status and header fields set on the response, the problem
	 * detail returned as its body.
	 * <p>
	 * Why not return the {@link ResponseEntity} of {@link #handleRateLimitExceeded}: Spring MVC
	 * flushes a {@code ResponseEntity} once written, which commits the response before its length
	 * is known, so every 429 went out chunked, in two writes to the socket instead of one. A body
	 * returned as such is written without that flush, as an admitted call's is.
	 * <p>
	 * A response already committed (a streamed body whose first part went out before the
	 * rejection) cannot become a 429: the rejection is thrown again, for the container to end
	 * the response, rather than its problem detail written as more of the committed body.
	 * @param exception the rejection
	 * @param response the response to answer with
	 * @return the problem detail, the response's body
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	public ProblemDetail answerRateLimitExceeded(RateLimitExceededException exception, HttpServletResponse response) {
		if (response.isCommitted()) {
			throw exception;
		}
		ResponseEntity<ProblemDetail> entity = handleRateLimitExceeded(exception);
		response.setStatus(entity.getStatusCode().value());
		entity.getHeaders().forEach((name, values) -> response.setHeader(name, values.get(0)));
		ProblemDetail problem = entity.getBody();
		Assert.state(problem != null, "A 429 has a problem detail");
		return problem;
	}

	/**
	 * Builds the answer to a rejected call, for an application's own handler to delegate to.
	 * @param exception the rejection
	 * @return the 429 response
	 */
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
				"Rate limit '" + exception.getLimiterName() + "' exceeded; retry after "
						+ DurationText.of(Duration.ofSeconds(retryAfterSeconds)));
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
