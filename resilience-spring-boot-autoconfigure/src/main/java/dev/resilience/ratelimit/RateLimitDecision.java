package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a rate limiter decided for one call, or, from {@link RateLimiter#inspect(String)}, the
 * state of one key. Immutable.
 */
public final class RateLimitDecision {

	private final String limiterName;

	private final String key;

	private final boolean permitted;

	private final Duration wait;

	private final Duration retryAfter;

	private final List<Quota> quotas;

	private final int inFlight;

	private final int maxConcurrent;

	/**
	 * Creates a decision.
	 * @param limiterName the limiter that decided
	 * @param key the key the decision is for
	 * @param permitted whether the call may proceed
	 * @param wait how long a permitted caller waits before proceeding (a reservation)
	 * @param retryAfter how long a rejected caller should wait before trying again
	 * @param quotas the state of each token bucket and window after the decision
	 * @param inFlight the calls in flight for the key, counting this one when permitted
	 * @param maxConcurrent the limit on calls in flight, 0 for none
	 */
	public RateLimitDecision(String limiterName, String key, boolean permitted, Duration wait, Duration retryAfter,
			List<Quota> quotas, int inFlight, int maxConcurrent) {
		this.limiterName = Objects.requireNonNull(limiterName, "limiterName");
		this.key = Objects.requireNonNull(key, "key");
		this.permitted = permitted;
		this.wait = nonNegative(wait);
		this.retryAfter = nonNegative(retryAfter);
		this.quotas = List.copyOf(quotas);
		this.inFlight = inFlight;
		this.maxConcurrent = maxConcurrent;
	}

	private static Duration nonNegative(Duration duration) {
		return duration.isNegative() ? Duration.ZERO : duration;
	}

	/**
	 * Returns the name of the limiter that decided.
	 * @return the limiter name
	 */
	public String getLimiterName() {
		return this.limiterName;
	}

	/**
	 * Returns the key the decision is for; empty for a limiter's single shared bucket.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Returns whether the call may proceed.
	 * @return whether the call was permitted
	 */
	public boolean isPermitted() {
		return this.permitted;
	}

	/**
	 * Returns how long a permitted caller must wait before proceeding; zero when it may
	 * proceed at once.
	 * @return the wait, never negative
	 */
	public Duration getWait() {
		return this.wait;
	}

	/**
	 * Returns how long a rejected caller should wait before trying again; zero for a permitted
	 * call.
	 * @return the time until a retry could succeed, never negative
	 */
	public Duration getRetryAfter() {
		return this.retryAfter;
	}

	/**
	 * Returns how many more calls of cost 1 the tightest constraint admits right now.
	 * @return the remaining quota
	 */
	public long getRemaining() {
		return tightest()[0];
	}

	/**
	 * Returns the quota of the tightest constraint, the one with the least remaining.
	 * @return the limit
	 */
	public long getLimit() {
		return tightest()[1];
	}

	/**
	 * Returns the state of each token bucket and window, in configuration order.
	 * @return the quotas
	 */
	public List<Quota> getQuotas() {
		return this.quotas;
	}

	/**
	 * Returns the calls in flight for the key.
	 * @return the calls in flight
	 */
	public int getInFlight() {
		return this.inFlight;
	}

	/**
	 * Returns the limit on calls in flight, 0 for none.
	 * @return the limit on calls in flight
	 */
	public int getMaxConcurrent() {
		return this.maxConcurrent;
	}

	/** The tightest constraint as (remaining, quota): the one with the least remaining. */
	private long[] tightest() {
		long remaining = Long.MAX_VALUE;
		long quota = 0;
		for (Quota candidate : this.quotas) {
			if (candidate.remaining() < remaining) {
				remaining = candidate.remaining();
				quota = candidate.quota();
			}
		}
		if (this.maxConcurrent > 0) {
			long free = Math.max(0, this.maxConcurrent - this.inFlight);
			if (free < remaining) {
				remaining = free;
				quota = this.maxConcurrent;
			}
		}
		return new long[] { remaining, quota };
	}

	@Override
	public String toString() {
		return "RateLimitDecision[limiter=" + this.limiterName + ", key=" + this.key + ", permitted=" + this.permitted
				+ ", wait=" + this.wait + ", retryAfter=" + this.retryAfter + ", quotas=" + this.quotas + ", inFlight="
				+ this.inFlight + "]";
	}

	/**
	 * The state of one token bucket or window.
	 *
	 * @param type whether this is the limiter's token bucket or one of its windows
	 * @param quota the calls the constraint admits per {@code window}
	 * @param window a window's period, or the time a token bucket takes to refill from empty
	 * @param remaining the quota left
	 * @param reset the time until more quota becomes available, zero when none is used
	 */
	public record Quota(Type type, long quota, Duration window, long remaining, Duration reset) {

		/**
		 * The kind of constraint a quota describes.
		 */
		public enum Type {

			/** The limiter's token bucket. */
			TOKEN_BUCKET,

			/** One of the limiter's sliding windows. */
			WINDOW

		}

	}

}
