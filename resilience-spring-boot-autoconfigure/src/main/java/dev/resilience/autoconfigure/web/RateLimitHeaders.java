package dev.resilience.autoconfigure.web;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import dev.resilience.ratelimit.RateLimitDecision;

/**
 * Formats a decision as HTTP header fields: {@code Retry-After} and the IETF httpapi draft's
 * {@code RateLimit-Policy} and {@code RateLimit}, one item per token bucket or window, e.g.
 * {@code "partner-api-5s";q=25;w=5} and {@code "partner-api-5s";r=0;t=3}.
 */
final class RateLimitHeaders {

	/** The {@code RateLimit-Policy} header field. */
	public static final String POLICY = "RateLimit-Policy";

	/** The {@code RateLimit} header field. */
	public static final String RATE_LIMIT = "RateLimit";

	// A policy's name, its quoted form and its RateLimit-Policy item depend only on the limiter's
	// name and settings, yet every limited response carries them, a 429 under a flood included:
	// formatting them per response (a period name, two escapes, several concatenations) repeated
	// the same work thousands of times a second. So they are formatted once per policy and kept
	// here, found by one hash lookup. A change of settings at run time makes new entries; the
	// cache is emptied when it grows beyond any plausible number of policies, so that settings
	// changed over and over cannot grow it without bound.
	private static final int MAX_CACHED_POLICIES = 1024;

	private static final Map<PolicyKey, Policy> policies = new ConcurrentHashMap<>();

	private RateLimitHeaders() {
	}

	/**
	 * Returns the {@code RateLimit-Policy} value: quota {@code q} per window {@code w} seconds.
	 * @param decision the decision
	 * @return the value, empty when the limiter has only a concurrency limit
	 */
	public static String policy(RateLimitDecision decision) {
		return decision.getQuotas()
			.stream()
			.map((quota) -> policyItem(decision, quota))
			.collect(Collectors.joining(", "));
	}

	/**
	 * Returns the {@code RateLimit} value: remaining {@code r} and seconds {@code t} until more.
	 * @param decision the decision
	 * @return the value, empty when the limiter has only a concurrency limit
	 */
	public static String rateLimit(RateLimitDecision decision) {
		return decision.getQuotas()
			.stream()
			.map((quota) -> rateLimitItem(decision, quota))
			.collect(Collectors.joining(", "));
	}

	/**
	 * Returns one quota's {@code RateLimit-Policy} item, such as {@code "partner-api-5s";q=25;w=5}.
	 * @param decision the decision the quota belongs to
	 * @param quota the quota
	 * @return the item
	 */
	public static String policyItem(RateLimitDecision decision, RateLimitDecision.Quota quota) {
		return policy(decision, quota).item();
	}

	/**
	 * Returns one quota's {@code RateLimit} item, such as {@code "partner-api-5s";r=0;t=3}.
	 * @param decision the decision the quota belongs to
	 * @param quota the quota
	 * @return the item
	 */
	public static String rateLimitItem(RateLimitDecision decision, RateLimitDecision.Quota quota) {
		return rateLimitItem(policy(decision, quota), quota);
	}

	/** The {@code RateLimit} item of a quota whose policy is known. */
	static String rateLimitItem(Policy policy, RateLimitDecision.Quota quota) {
		return policy.quotedName() + ";r=" + quota.remaining() + ";t=" + seconds(quota.reset());
	}

	/** Whole seconds, rounded up: a client told to come back early would only be rejected again. */
	static long seconds(Duration duration) {
		if (duration.isNegative() || duration.isZero()) {
			return 0;
		}
		return duration.getSeconds() + ((duration.getNano() > 0) ? 1 : 0);
	}

	/** A quota's policy, formatted on first use. */
	static Policy policy(RateLimitDecision decision, RateLimitDecision.Quota quota) {
		PolicyKey key = new PolicyKey(decision.getLimiterName(), quota.type(), quota.quota(), quota.window());
		Policy policy = policies.get(key);
		if (policy == null) {
			if (policies.size() >= MAX_CACHED_POLICIES) {
				policies.clear();
			}
			// Formatted from the quota, which names its policy; only a miss pays for the lambda.
			policy = policies.computeIfAbsent(key, (k) -> Policy.of(k, quota.policyName(k.limiterName())));
		}
		return policy;
	}

	private static String quoted(String name) {
		return '"' + name.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
	}

	/** What a policy's texts depend on: the limiter and the constraint's settings, not its state. */
	private record PolicyKey(String limiterName, RateLimitDecision.Quota.Type type, long quota, Duration window) {
	}

	/**
	 * One policy's texts.
	 *
	 * @param name the policy name, such as {@code partner-api-5s}
	 * @param quotedName the name as a quoted string, as items start
	 * @param item the {@code RateLimit-Policy} item, such as {@code "partner-api-5s";q=25;w=5}
	 */
	record Policy(String name, String quotedName, String item) {

		private static Policy of(PolicyKey key, String name) {
			String quotedName = quoted(name);
			return new Policy(name, quotedName,
					quotedName + ";q=" + key.quota() + ";w=" + Math.max(1, seconds(key.window())));
		}

	}

}
