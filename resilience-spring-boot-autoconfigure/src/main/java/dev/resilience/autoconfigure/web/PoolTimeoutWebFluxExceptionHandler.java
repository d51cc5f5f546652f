package dev.resilience.autoconfigure.web;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ServerWebExchange;

import dev.resilience.pool.CheckoutTimeoutException;
import dev.resilience.pool.DeadlineExceededException;
import dev.resilience.pool.OperationTimeoutException;

/**
 * Turns a pool's timeout that a WebFlux handler throws or signals into the same answer as
 * {@link PoolTimeoutExceptionHandler} does in Spring MVC: {@code 503 Service Unavailable} for a
 * {@link CheckoutTimeoutException}, {@code 504 Gateway Timeout} for an
 * {@link OperationTimeoutException}, each a {@link ProblemDetail} naming the pool. Ordered last,
 * so an application's own {@code @ExceptionHandler} for the exception wins.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class PoolTimeoutWebFluxExceptionHandler {

	/**
	 * Answers a timed-out call. A timeout after the response committed is thrown again.
	 * @param exception the timeout
	 * @param exchange the exchange that made the call
	 * @return the 503 or 504 response
	 */
	@ExceptionHandler({ CheckoutTimeoutException.class, OperationTimeoutException.class })
	public ResponseEntity<ProblemDetail> handlePoolTimeout(DeadlineExceededException exception,
			ServerWebExchange exchange) {
		if (exchange.getResponse().isCommitted()) {
			throw exception;
		}
		return PoolTimeoutExceptionHandler.timedOut(exception);
	}

}
