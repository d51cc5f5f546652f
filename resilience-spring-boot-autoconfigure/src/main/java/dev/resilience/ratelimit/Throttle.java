package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.DurationText;

/**
 * A partner's answer read as "slow down": the wait it asks for, if it names one, and where that
 * wait came from. A limiter with {@code pause-on-throttle} turns it into a pause of the call's key
 * ({@link RateLimiter#pause(String, Throttle)}).
 *
 * @param requested the wait the answer asks for, or {@code null} when it names none (the limiter's
 * {@code default-pause} applies)
 * @param cause where the wait came from: the {@code cause} tag of the
 * {@code resilience.ratelimiter.pauses} counter
 */
public record Throttle(@Nullable Duration requested, Cause cause) {

	/**
	 * Checks the values.
	 * @param requested see the record component
	 * @param cause see the record component
	 * @throws IllegalArgumentException if the wait is negative, or missing for a cause that names one
	 */
	public Throttle {
		Objects.requireNonNull(cause, "cause");
		if (requested != null && requested.isNegative()) {
			throw new IllegalArgumentException(
					"a throttle's wait must not be negative but was " + DurationText.of(requested));
		}
		if ((requested == null) != (cause == Cause.DEFAULT)) {
			throw new IllegalArgumentException("a throttle of cause " + cause + ((requested == null)
					? " names its wait" : " names no wait (it takes the limiter's default-pause)"));
		}
	}

	/**
	 * A throttle whose answer named its wait in a {@code Retry-After} field (or, for other clients,
	 * anything that says how long to wait).
	 * @param wait the wait
	 * @return the throttle
	 */
	public static Throttle retryAfter(Duration wait) {
		return new Throttle(wait, Cause.RETRY_AFTER);
	}

	/**
	 * A throttle read from an IETF {@code RateLimit} field item with no quota left ({@code r=0}):
	 * its {@code t}.
	 * @param wait the seconds until more quota
	 * @return the throttle
	 */
	public static Throttle rateLimitField(Duration wait) {
		return new Throttle(wait, Cause.RATELIMIT_FIELD);
	}

	/**
	 * A throttle whose answer named no wait: the limiter's {@code default-pause} applies.
	 * @return the throttle
	 */
	public static Throttle unspecified() {
		return new Throttle(null, Cause.DEFAULT);
	}

	/**
	 * A pause asked for by the application itself ({@link RateLimiter#pause(String, Duration)}).
	 * @param wait the wait
	 * @return the throttle
	 */
	public static Throttle manual(Duration wait) {
		return new Throttle(wait, Cause.MANUAL);
	}

	/**
	 * Where a pause's length came from.
	 */
	public enum Cause {

		/** The answer's {@code Retry-After}. */
		RETRY_AFTER("retry-after"),

		/** The {@code t} of a {@code RateLimit} field item with {@code r=0}. */
		RATELIMIT_FIELD("ratelimit-field"),

		/** A throttled answer that named no wait: the limiter's {@code default-pause}. */
		DEFAULT("default"),

		/** {@link RateLimiter#pause(String, Duration)}. */
		MANUAL("manual");

		private final String tag;

		Cause(String tag) {
			this.tag = tag;
		}

		/**
		 * Returns the cause as the meters and events write it, such as {@code retry-after}.
		 * @return the tag value
		 */
		public String tag() {
			return this.tag;
		}

	}

}
