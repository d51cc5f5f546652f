package dev.resilience.autoconfigure.web;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

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
 * <p>
 * A call decided on the request's thread sets the header fields at once. A call decided on
 * another thread (a {@code CompletionStage}, {@code Mono} or {@code Flux} method that waited for
 * its slot, or was decided by a remote store) finds the request's items through
 * context-propagation, which the starter's continuations restore: creating one registers them with
 * its global {@code ContextRegistry}. Its decision is recorded there, and
 * {@link RateLimitAsyncResponseHeaders} writes the items when the request is dispatched again to
 * write the asynchronous result; the response is never touched from another thread.
 */
public class RateLimitResponseHeaders implements RateLimitListener {

	/** The items of the request whose call this thread continues, away from the request's thread. */
	private static final ThreadLocal<@Nullable RateLimitHeaderItems> carried = new ThreadLocal<>();

	/** Creates the listener and registers the request's items with context-propagation. */
	public RateLimitResponseHeaders() {
		ContextRegistry.getInstance().registerThreadLocalAccessor(new CarriedItemsAccessor());
	}

	@Override
	public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
		if (!decision.isPermitted() || decision.getQuotas().isEmpty()) {
			return;
		}
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (attributes instanceof ServletRequestAttributes servletAttributes) {
			HttpServletResponse response = servletAttributes.getResponse();
			if (response != null && !response.isCommitted()) {
				RateLimitHeaderItems items = RateLimitHeaderItems.of(servletAttributes);
				// One state for both fields, should a call continued elsewhere record meanwhile.
				synchronized (items) {
					items.merge(decision);
					response.setHeader(RateLimitHeaders.POLICY, items.policy());
					response.setHeader(RateLimitHeaders.RATE_LIMIT, items.rateLimit());
				}
			}
			return;
		}
		RateLimitHeaderItems items = carried.get();
		if (items != null) {
			items.merge(decision);
		}
	}

	/**
	 * The items of the current request as a context-propagation value: captured on the request's
	 * thread (created there, as a request attribute), restored on the threads that continue its calls.
	 */
	private static final class CarriedItemsAccessor implements ThreadLocalAccessor<RateLimitHeaderItems> {

		private static final String KEY = CarriedItemsAccessor.class.getName();

		@Override
		public Object key() {
			return KEY;
		}

		@Override
		public @Nullable RateLimitHeaderItems getValue() {
			RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
			if (attributes instanceof ServletRequestAttributes servletAttributes) {
				try {
					return RateLimitHeaderItems.of(servletAttributes);
				}
				catch (IllegalStateException ex) {
					// The request is over: nothing of it to carry.
					return null;
				}
			}
			return carried.get();
		}

		@Override
		public void setValue(RateLimitHeaderItems value) {
			carried.set(value);
		}

		@Override
		public void setValue() {
			carried.remove();
		}

	}

}
