package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a rate limiter rejects a call. A Spring MVC application turns it into
 * {@code 429 Too Many Requests}.
 * <p>
 * The limiters of a {@link dev.resilience.ratelimit.store.StoreRateLimiterRegistry} throw it
 * without a stack trace unless
 * {@linkplain dev.resilience.ratelimit.store.StoreRateLimiterRegistry.Builder#stackTraces(boolean) asked for one}
 * ({@code resilience.rate-limit-stack-traces}): under a flood most calls are rejected, and
 * recording the stack of each would cost more than deciding it. What a rejection needs to be
 * understood, the limiter, the key and the delay, is in its fields and its message, which is only
 * formatted when read.
 */
public class RateLimitExceededException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String limiterName;

	private final String key;

	private final Duration retryAfter;

	// Not serializable: after deserialization the decision is rebuilt from the fields above.
	private final transient @Nullable RateLimitDecision decision;

	/**
	 * Creates the exception for a rejecting decision, with a stack trace.
	 * @param decision the decision that rejected the call
	 */
	public RateLimitExceededException(RateLimitDecision decision) {
		this(decision, true);
	}

	/**
	 * Creates the exception for a rejecting decision.
	 * @param decision the decision that rejected the call
	 * @param stackTrace whether to record the stack trace of the rejected call
	 */
	public RateLimitExceededException(RateLimitDecision decision, boolean stackTrace) {
		super(null, null, true, stackTrace);
		this.limiterName = decision.getLimiterName();
		this.key = decision.getKey();
		this.retryAfter = decision.getRetryAfter();
		this.decision = decision;
	}

	/**
	 * Returns what was rejected and when to retry, such as
	 * {@code Rate limiter 'partner-api' rejected the call for key 'k'; retry after PT3S}.
	 * @return the message
	 */
	@Override
	public String getMessage() {
		return "Rate limiter '" + this.limiterName + "' rejected the call"
				+ (this.key.isEmpty() ? "" : " for key '" + this.key + "'") + "; retry after " + this.retryAfter;
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
