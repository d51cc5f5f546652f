package dev.resilience.autoconfigure.web;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Writes {@code RateLimit-Policy} and {@code RateLimit} when Spring MVC dispatches a request again
 * to write its asynchronous result: the items of the calls decided away from the request's thread
 * (see {@link RateLimitResponseHeaders}), with those decided on it.
 */
final class RateLimitAsyncResponseHeaders implements WebMvcConfigurer, HandlerInterceptor {

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(this);
	}

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		if (request.getDispatcherType() == DispatcherType.ASYNC && !response.isCommitted()) {
			RateLimitHeaderItems items = RateLimitHeaderItems.find(request);
			if (items != null) {
				synchronized (items) {
					if (!items.isEmpty()) {
						response.setHeader(RateLimitHeaders.POLICY, items.policy());
						response.setHeader(RateLimitHeaders.RATE_LIMIT, items.rateLimit());
					}
				}
			}
		}
		return true;
	}

}
