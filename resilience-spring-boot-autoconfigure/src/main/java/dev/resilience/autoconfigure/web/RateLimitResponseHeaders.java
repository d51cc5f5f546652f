package dev.resilience.autoconfigure.web;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiter;

/**
 * Adds {@code RateLimit-Policy} and {@code RateLimit} to the response of the Spring MVC request
 * during which a call was admitted, so clients can pace themselves before they are rejected: one
 * item per policy, showing the state after the request's last call of that limiter, however many
 * limited calls the request made.
 */
public class RateLimitResponseHeaders implements RateLimitListener {

	@Override
	public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
		if (!decision.isPermitted() || decision.getQuotas().isEmpty()) {
			return;
		}
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (attributes instanceof ServletRequestAttributes servletAttributes) {
			HttpServletResponse response = servletAttributes.getResponse();
			if (response != null && !response.isCommitted()) {
				RateLimitHeaderItems items = RateLimitHeaderItems.of(servletAttributes).merge(decision);
				response.setHeader(RateLimitHeaders.POLICY, items.policy());
				response.setHeader(RateLimitHeaders.RATE_LIMIT, items.rateLimit());
			}
		}
	}

}
