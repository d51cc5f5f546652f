package dev.resilience.autoconfigure.web;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import dev.resilience.autoconfigure.ratelimit.RateLimitDecisionRecorder;

/**
 * Gives every WebFlux exchange a {@link RateLimitDecisionRecorder} and writes the decisions it
 * recorded as {@code RateLimit-Policy} and {@code RateLimit} just before the response commits:
 * one item per policy, the state after the exchange's last call of that limiter.
 * <p>
 * The recorder is in the Reactor {@code Context} of the exchange's handling under the key
 * {@code RateLimitDecisionRecorder.class}, where the driver of {@code @RateLimited}
 * {@code Mono} and {@code Flux} methods finds it, and it is the current thread's recorder while
 * the handling is subscribed, where {@link RateLimitWebFluxListener} finds it for calls decided
 * outside Reactor. Decisions recorded after the response committed are not shown: WebFlux commits
 * a {@code Flux} response at its first element, a JSON array's too, so those made for its later
 * elements are left out.
 */
public class RateLimitWebFluxFilter implements WebFilter, Ordered {

	/** The filter's order: first, so that everything the exchange calls can record. */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE;

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		RateLimitExchangeDecisions decisions = RateLimitExchangeDecisions.of(exchange);
		ServerHttpResponse response = exchange.getResponse();
		response.beforeCommit(() -> Mono.fromRunnable(() -> decisions.writeTo(response.getHeaders())));
		Publisher<Void> handling = (subscriber) -> RateLimitExchangeDecisions.runWith(decisions,
				() -> chain.filter(exchange).subscribe(subscriber));
		return Mono.fromDirect(handling).contextWrite(Context.of(RateLimitDecisionRecorder.class, decisions));
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

}
