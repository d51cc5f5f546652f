package dev.resilience.ratelimit;

import java.time.Duration;

/**
 * Thrown when a rate limiter rejects a call. A Spring MVC application turns it into
 * {@code 429 Too Many Requests}.
 */
public class RateLimitExceededException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final transient RateLimitDecision decision;

	/**
	 * Creates the exception for a rejecting decision.
	 * @param decision the decision that rejected the call
	 */
	public RateLimitExceededException(RateLimitDecision decision) {
		super("Rate limiter '" + decision.getLimiterName() + "' rejected the call"
				+ (decision.getKey().isEmpty() ? "" : " for key '" + decision.getKey() + "'") + "; retry after "
				+ decision.getRetryAfter());
		this.decision = decision;
	}

	/**
	 * Returns the name of the limiter that rejected the call.
	 * @return the limiter name
	 */
	public String getLimiterName() {
		return this.decision.getLimiterName();
	}

	/**
	 * Returns the key whose bucket was exhausted; empty for a limiter's single shared bucket.
	 * @return the key
	 */
	public String getKey() {
		return this.decision.getKey();
	}

	/**
	 * Returns how long to wait before a retry could succeed.
	 * @return the retry delay, never negative
	 */
	public Duration getRetryAfter() {
		return this.decision.getRetryAfter();
	}

	/**
	 * Returns the full decision.
	 * @return the decision that rejected the call
	 */
	public RateLimitDecision getDecision() {
		return this.decision;
	}

}
