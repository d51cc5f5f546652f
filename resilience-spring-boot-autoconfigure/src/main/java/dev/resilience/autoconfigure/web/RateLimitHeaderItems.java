package dev.resilience.autoconfigure.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.ServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.web.context.request.RequestAttributes;

import dev.resilience.ratelimit.RateLimitDecision;

/**
 * The {@code RateLimit-Policy} and {@code RateLimit} items of one response: one per policy,
 * showing the state after the latest decision of its limiter, however many limited calls the
 * request made. Kept as a request attribute, in the order the policies were first seen.
 */
final class RateLimitHeaderItems {

	private static final String ATTRIBUTE = RateLimitHeaderItems.class.getName();

	/** Policy name to its {@code RateLimit-Policy} and {@code RateLimit} items. */
	private final Map<String, String[]> items = new LinkedHashMap<>();

	/**
	 * Returns the items of a request, created on first use.
	 * @param request the request's attributes, or {@code null} outside a request
	 * @return the items; for no request, fresh ones
	 */
	static RateLimitHeaderItems of(@Nullable RequestAttributes request) {
		if (request == null) {
			return new RateLimitHeaderItems();
		}
		Object items = request.getAttribute(ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
		if (items == null) {
			items = new RateLimitHeaderItems();
			request.setAttribute(ATTRIBUTE, items, RequestAttributes.SCOPE_REQUEST);
		}
		return (RateLimitHeaderItems) items;
	}

	/**
	 * Returns the items a request has, without creating them.
	 * @param request the request
	 * @return the items, or {@code null} when no call of the request recorded any
	 */
	static @Nullable RateLimitHeaderItems find(ServletRequest request) {
		return (request.getAttribute(ATTRIBUTE) instanceof RateLimitHeaderItems items) ? items : null;
	}

	/**
	 * Takes a decision's items, replacing earlier ones of the same policies.
	 * @param decision the decision
	 * @return this
	 */
	synchronized RateLimitHeaderItems merge(RateLimitDecision decision) {
		List<RateLimitDecision.Quota> quotas = decision.getQuotas();
		for (int i = 0; i < quotas.size(); i++) {
			RateLimitDecision.Quota quota = quotas.get(i);
			RateLimitHeaders.Policy policy = RateLimitHeaders.policy(decision, quota);
			this.items.put(policy.name(), new String[] { policy.item(), RateLimitHeaders.rateLimitItem(policy, quota) });
		}
		return this;
	}

	synchronized boolean isEmpty() {
		return this.items.isEmpty();
	}

	/** The {@code RateLimit-Policy} value. */
	synchronized String policy() {
		return join(0);
	}

	/** The {@code RateLimit} value. */
	synchronized String rateLimit() {
		return join(1);
	}

	private String join(int field) {
		StringBuilder joined = new StringBuilder(64);
		for (String[] item : this.items.values()) {
			if (!joined.isEmpty()) {
				joined.append(", ");
			}
			joined.append(item[field]);
		}
		return joined.toString();
	}

}
