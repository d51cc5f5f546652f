package dev.resilience.autoconfigure.web;

import java.net.URI;
import java.util.List;

import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.util.Assert;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.result.view.ViewResolver;
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

	private final ServerResponse.Context context;

	/**
	 * Creates a handler that writes the problem detail with the given codecs.
	 * @param codecs the application's codecs
	 */
	public PoolTimeoutWebExceptionHandler(ServerCodecConfigurer codecs) {
		List<HttpMessageWriter<?>> writers = codecs.getWriters();
		this.context = new ServerResponse.Context() {

			@Override
			public List<HttpMessageWriter<?>> messageWriters() {
				return writers;
			}

			@Override
			public List<ViewResolver> viewResolvers() {
				return List.of();
			}

		};
	}

	@Override
	public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
		if (!(ex instanceof CheckoutTimeoutException || ex instanceof OperationTimeoutException)
				|| exchange.getResponse().isCommitted()) {
			return Mono.error(ex);
		}
		ResponseEntity<ProblemDetail> entity = PoolTimeoutExceptionHandler.timedOut((DeadlineExceededException) ex);
		ProblemDetail problem = entity.getBody();
		Assert.state(problem != null, "A pool's timeout has a problem detail");
		// A handler method's ProblemDetail gets its instance from WebFlux; here it is ours to set.
		problem.setInstance(URI.create(exchange.getRequest().getPath().value()));
		return ServerResponse.status(entity.getStatusCode())
			.headers((headers) -> headers.addAll(entity.getHeaders()))
			.bodyValue(problem)
			.flatMap((response) -> response.writeTo(exchange, this.context));
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
