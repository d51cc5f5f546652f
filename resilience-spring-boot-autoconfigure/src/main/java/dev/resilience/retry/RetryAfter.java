package dev.resilience.retry;

import java.time.Clock;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.HttpFields;
import dev.resilience.ratelimit.RateLimitExceededException;

/**
 * Reads how long a failure asks to wait before the next attempt, such as from a rate limiter's
 * rejection or an HTTP {@code Retry-After} header. {@link Retry} asks it about the failure and
 * each of its causes; the next delay is then at least that long.
 */
@FunctionalInterface
public interface RetryAfter {

	/**
	 * Returns the wait one exception asks for.
	 * @param failure the exception, or one of its causes
	 * @return the wait, or {@code null} when it asks for none
	 */
	@Nullable Duration of(Throwable failure);

	/**
	 * Returns the reader that knows {@link RateLimitExceededException#getRetryAfter()}.
	 * @return the reader
	 */
	static RetryAfter rateLimits() {
		return (failure) -> (failure instanceof RateLimitExceededException rejected) ? rejected.getRetryAfter() : null;
	}

	/**
	 * Returns a reader that asks this one, then the other when this one finds nothing.
	 * @param other the other reader
	 * @return the combined reader
	 */
	default RetryAfter or(RetryAfter other) {
		return (failure) -> {
			Duration wait = of(failure);
			return (wait != null) ? wait : other.of(failure);
		};
	}

	/**
	 * Parses the value of an HTTP {@code Retry-After} header (RFC 9110, section 10.2.3): a
	 * number of seconds, or an HTTP-date, which is read relative to the clock. A date in the
	 * past asks for no wait.
	 * @param value the header's value
	 * @param clock the clock an HTTP-date is compared with
	 * @return the wait, or {@code null} when the value is neither form
	 */
	static @Nullable Duration parseHeader(String value, Clock clock) {
		return HttpFields.retryAfter(value, clock);
	}

}
