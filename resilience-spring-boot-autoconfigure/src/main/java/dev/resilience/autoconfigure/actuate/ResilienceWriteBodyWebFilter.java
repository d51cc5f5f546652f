package dev.resilience.autoconfigure.actuate;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * The WebFlux side of {@link ResilienceWriteBodyFilter}: hands the {@code properties} object of a
 * write operation's body on to the operation as a JSON string, reading the body without blocking.
 */
class ResilienceWriteBodyWebFilter implements WebFilter {

	private final String pathPrefix;

	/**
	 * Creates the filter.
	 * @param pathPrefix the path of the endpoint, such as {@code /actuator/resilience}
	 */
	ResilienceWriteBodyWebFilter(String pathPrefix) {
		this.pathPrefix = pathPrefix + "/";
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		if (request.getMethod() != HttpMethod.POST
				|| !request.getPath().pathWithinApplication().value().startsWith(this.pathPrefix)) {
			return chain.filter(exchange);
		}
		return DataBufferUtils.join(request.getBody()).defaultIfEmpty(exchange.getResponse().bufferFactory().wrap(new byte[0]))
			.flatMap((joined) -> {
				byte[] read = new byte[joined.readableByteCount()];
				joined.read(read);
				DataBufferUtils.release(joined);
				byte[] body = ResilienceWriteBodyFilter.ResilienceWriteBody.flatten(read);
				ServerHttpRequest rewritten = new ServerHttpRequestDecorator(request) {

					@Override
					public HttpHeaders getHeaders() {
						HttpHeaders headers = new HttpHeaders();
						headers.putAll(super.getHeaders());
						headers.setContentLength(body.length);
						return headers;
					}

					@Override
					public Flux<DataBuffer> getBody() {
						return Flux.defer(() -> Flux.just(exchange.getResponse().bufferFactory().wrap(body)));
					}

				};
				return chain.filter(exchange.mutate().request(rewritten).build());
			});
	}

}
