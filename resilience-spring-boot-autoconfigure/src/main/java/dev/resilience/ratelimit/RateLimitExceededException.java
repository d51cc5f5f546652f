package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a rate limiter rejects a call. A Spring MVC application turns it into
 * {@code 429 Too Many Requests}.
 */
public class RateLimitExceededException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String limiterName;

	private final String key;

	private final Duration retryAfter;

	// Not serializable: after deserialization the decision is rebuilt from the fields above.
	private final transient @Nullable RateLimitDecision decision;

	/**
	 * Creates the exception for a rejecting decision.
	 * @param decision the decision that rejected the call
	 */
	public RateLimitExceededException(RateLimitDecision decision) {
		super("Rate limiter '" + decision.getLimiterName() + "' rejected the call"
				+ (decision.getKey().isEmpty() ? "" : " for key '" + decision.getKey() + "'") + "; retry after "
				+ decision.getRetryAfter());
		this.limiterName = decision.getLimiterName();
		this.key = decision.getKey();
		this.retryAfter = decision.getRetryAfter();
		this.decision = decision;
	}

	/**
	 * Returns the name of the limiter that rejected the call.
	 * @return the limiter name
	 */
	public String getLimiterName() {
		return this.limiterName;
	}

	/**
	 * Returns the key whose bucket was exhausted; empty for a limiter's single shared bucket.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Returns how long to wait before a retry could succeed.
	 * @return the retry delay, never negative
	 */
	public Duration getRetryAfter() {
		return this.retryAfter;
	}

	/**
	 * Returns the full decision. After the exception was serialized and read back, only the
	 * limiter, key and Retry-After are known: the decision then has no quotas.
	 * @return the decision that rejected the call
	 */
	public RateLimitDecision getDecision() {
		RateLimitDecision decided = this.decision;
		return (decided != null) ? decided
				: new RateLimitDecision(this.limiterName, this.key, false, Duration.ZERO, this.retryAfter, List.of(), 0, 0);
	}

}
