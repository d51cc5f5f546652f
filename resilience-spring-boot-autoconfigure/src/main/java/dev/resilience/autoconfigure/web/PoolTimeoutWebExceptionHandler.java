package dev.resilience.autoconfigure.web;


import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;

import dev.resilience.pool.CheckoutTimeoutException;
import dev.resilience.pool.DeadlineExceededException;
import dev.resilience.pool.OperationTimeoutException;

/**
 * Answers a pool's timeout that no handler method answered, such as one a functional endpoint
 * ({@code RouterFunction}) or a web filter signals, with the same {@code 503} or {@code 504} as
 * {@link PoolTimeoutWebFluxExceptionHandler}. Ordered just before Spring Boot's error handler,
 * which would make it a {@code 500} logged with its stack trace. An application's own
 * {@code @ExceptionHandler}, or a router function's {@code onError}, answers first.
 */
public class PoolTimeoutWebExceptionHandler implements WebExceptionHandler, Ordered {

	/** The handler's order: just before Spring Boot's {@code ErrorWebExceptionHandler} ({@code -1}). */
	public static final int ORDER = -2;

	private final ProblemResponses problems;

	/**
	 * Creates a handler that writes the problem detail with the given codecs.
	 * @param codecs the application's codecs
	 */
	public PoolTimeoutWebExceptionHandler(ServerCodecConfigurer codecs) {
		this.problems = new ProblemResponses(codecs);
	}

	@Override
	public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
		if (!(ex instanceof CheckoutTimeoutException || ex instanceof OperationTimeoutException)
				|| exchange.getResponse().isCommitted()) {
			return Mono.error(ex);
		}
		return this.problems.write(exchange,
				PoolTimeoutExceptionHandler.timedOut((DeadlineExceededException) ex));
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
