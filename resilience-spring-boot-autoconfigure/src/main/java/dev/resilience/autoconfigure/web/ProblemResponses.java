package dev.resilience.autoconfigure.web;

import java.net.URI;
import java.util.List;

import reactor.core.publisher.Mono;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.util.Assert;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.result.view.ViewResolver;
import org.springframework.web.server.ServerWebExchange;

/**
 * Writes a problem answer (a {@code ResponseEntity<ProblemDetail>} that a handler method would
 * return) from a {@code WebExceptionHandler}, where no handler method's machinery writes it: the
 * one piece the rate limit's and the pools' WebFlux exception handlers share.
 */
final class ProblemResponses {

	private final ServerResponse.Context context;

	ProblemResponses(ServerCodecConfigurer codecs) {
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

	/** Writes the answer as {@code application/problem+json}, its instance the request's path. */
	Mono<Void> write(ServerWebExchange exchange, ResponseEntity<ProblemDetail> entity) {
		ProblemDetail problem = entity.getBody();
		Assert.state(problem != null, "A problem answer has a problem detail");
		// A handler method's ProblemDetail gets its instance from WebFlux; here it is ours to set.
		problem.setInstance(URI.create(exchange.getRequest().getPath().value()));
		return ServerResponse.status(entity.getStatusCode())
			.headers((headers) -> headers.addAll(entity.getHeaders()))
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.bodyValue(problem)
			.flatMap((response) -> response.writeTo(exchange, this.context));
	}

}
