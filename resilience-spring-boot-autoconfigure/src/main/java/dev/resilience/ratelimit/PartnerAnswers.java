package dev.resilience.ratelimit;

import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.HttpFields;

/**
 * Reads a partner's HTTP answer as a {@link Throttle}, whatever client received it: the starter's
 * own readers of Spring's clients use it, and so can a {@link ThrottleSignal} for a vendor SDK
 * that exposes the status and header fields. Malformed fields are ignored (the IETF draft's rule).
 */
public final class PartnerAnswers {

	/** The header field a partner names its wait in. */
	public static final String RETRY_AFTER = "Retry-After";

	/** The IETF httpapi draft's field of the quota left. */
	public static final String RATE_LIMIT = "RateLimit";

	private PartnerAnswers() {
	}

	/**
	 * Reads a throttled answer: one whose status is in {@code statuses}. Its wait is the
	 * {@code Retry-After} (seconds or HTTP-date), else the {@code t} of a {@code RateLimit} item
	 * with {@code r=0}, else none ({@link Throttle#unspecified()}).
	 * @param status the answer's HTTP status
	 * @param fields the answer's header fields by name (the first value, {@code null} when absent)
	 * @param statuses the statuses that mean "slow down"
	 * @param clock the clock an HTTP-date is compared with
	 * @return the throttle, or {@code null} when the status is not in {@code statuses}
	 */
	public static @Nullable Throttle throttled(int status, Function<String, @Nullable String> fields,
			Set<Integer> statuses, Clock clock) {
		if (!statuses.contains(status)) {
			return null;
		}
		String retryAfter = fields.apply(RETRY_AFTER);
		Duration wait = (retryAfter != null) ? HttpFields.retryAfter(retryAfter, clock) : null;
		if (wait != null) {
			return Throttle.retryAfter(wait);
		}
		Throttle exhausted = quotaExhausted(fields);
		return (exhausted != null) ? exhausted : Throttle.unspecified();
	}

	/**
	 * Reads an answer of any status for a quota already used up: a {@code RateLimit} item with
	 * {@code r=0} asks to wait its {@code t} (the longest, when several have none left), before the
	 * partner has to refuse a call.
	 * @param fields the answer's header fields by name (the first value, {@code null} when absent)
	 * @return the throttle, or {@code null} when no item has {@code r=0}
	 */
	public static @Nullable Throttle quotaExhausted(Function<String, @Nullable String> fields) {
		String rateLimit = fields.apply(RATE_LIMIT);
		Duration wait = (rateLimit != null) ? HttpFields.exhaustedFor(rateLimit) : null;
		return (wait != null) ? Throttle.rateLimitField(wait) : null;
	}

}
