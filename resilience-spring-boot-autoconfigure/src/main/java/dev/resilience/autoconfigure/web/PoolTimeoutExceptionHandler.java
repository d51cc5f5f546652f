package dev.resilience.autoconfigure.web;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.resilience.internal.DurationText;
import dev.resilience.pool.CheckoutTimeoutException;
import dev.resilience.pool.DeadlineExceededException;
import dev.resilience.pool.OperationTimeoutException;

/**
 * Turns an uncaught timeout of a pool into a {@link ProblemDetail} naming the pool:
 * {@link CheckoutTimeoutException} (no connection in time, the work never ran) into
 * {@code 503 Service Unavailable}, {@link OperationTimeoutException} (the work outlived the
 * deadline) into {@code 504 Gateway Timeout}, instead of a {@code 500} with a stack trace in the
 * log. Ordered last, so an application's own {@code @ExceptionHandler} for the exception wins.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class PoolTimeoutExceptionHandler {

	private static final System.Logger logger = System.getLogger(PoolTimeoutExceptionHandler.class.getName());

	/**
	 * Answers a timed-out call. A timeout after the response committed (a streamed body whose
	 * first part went out) cannot change its status: it is thrown again, for the container to end
	 * the response.
	 * @param exception the timeout
	 * @param response the response to answer with
	 * @return the 503 or 504 response
	 */
	@ExceptionHandler({ CheckoutTimeoutException.class, OperationTimeoutException.class })
	public ResponseEntity<ProblemDetail> answerPoolTimeout(DeadlineExceededException exception,
			HttpServletResponse response) {
		if (response.isCommitted()) {
			throw exception;
		}
		return handlePoolTimeout(exception);
	}

	/**
	 * Builds the answer to a timed-out call, for an application's own handler to delegate to.
	 * @param exception the timeout
	 * @return the 503 (checkout) or 504 (operation) response
	 */
	public ResponseEntity<ProblemDetail> handlePoolTimeout(DeadlineExceededException exception) {
		return timedOut(exception);
	}

	/**
	 * Builds the response to a pool's timeout, for Spring MVC and WebFlux alike: {@code 503} for a
	 * checkout that timed out, {@code 504} otherwise, the problem detail with the pool's name and
	 * the call's deadline. Nothing the call was given appears in it.
	 * @param exception the timeout
	 * @return the response
	 */
	static ResponseEntity<ProblemDetail> timedOut(DeadlineExceededException exception) {
		boolean checkout = exception instanceof CheckoutTimeoutException;
		HttpStatus status = checkout ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.GATEWAY_TIMEOUT;
		String timeout = DurationText.of(exception.getTimeout());
		String detail = checkout
				? "No connection of pool '" + exception.getPool() + "' became free within " + timeout
				: "Work with a connection of pool '" + exception.getPool() + "' did not finish within " + timeout;
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setTitle(status.getReasonPhrase());
		problem.setProperty("pool", exception.getPool());
		problem.setProperty("timeoutMillis", exception.getTimeout().toMillis());
		logger.log(System.Logger.Level.DEBUG, () -> "Answered " + status.value() + ": " + detail);
		// Named, not negotiated: a streaming handler's writer may have set the response's content
		// type before the timeout, as for the 429.
		return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
	}

}
