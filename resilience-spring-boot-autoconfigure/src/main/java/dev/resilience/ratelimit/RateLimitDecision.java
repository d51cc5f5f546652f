package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.Durations;

/**
 * What a rate limiter decided for one call, or, from {@link RateLimiter#inspect(String)}, the
 * state of one key. Immutable: every field is final, and the quotas are computed from them each
 * time they are read.
 */
public final class RateLimitDecision {

	private final String limiterName;

	private final String key;

	private final boolean permitted;

	private final long waitNanos;

	private final long retryAfterNanos;

	private final boolean concurrencyLimited;

	private final int inFlight;

	private final int maxConcurrent;

	/** The rest of the pause in force for the key when decided, 0 when none. */
	private final long pauseNanos;

	/*
	 * Speed: most callers only ask whether they were permitted, so a store's decision keeps the
	 * raw numbers its quotas come from (the limiter's settings, the time, the key's immutable
	 * bucket after the call and each window's remaining quota and reset) and builds Quota objects
	 * only when they are read. A decision built from quotas keeps those instead.
	 */

	/** The quotas as given, or {@code null} for a store's decision. */
	private final @Nullable List<Quota> quotas;

	private final @Nullable RateLimiterSettings settings;

	private final long at;

	private final @Nullable BucketLevel bucket;

	/** Each window's remaining quota and nanoseconds until more, in pairs; {@code null} without windows. */
	private final long @Nullable [] windowQuotas;

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
		this(limiterName, key, permitted, wait, retryAfter, false, quotas, inFlight, maxConcurrent);
	}

	/**
	 * Creates a decision that may have been rejected for want of a concurrency permit alone.
	 * @param limiterName the limiter that decided
	 * @param key the key the decision is for
	 * @param permitted whether the call may proceed
	 * @param wait how long a permitted caller waits before proceeding (a reservation)
	 * @param retryAfter how long a rejected caller should wait before trying again
	 * @param concurrencyLimited whether a rejected call lacked only a concurrency permit
	 * @param quotas the state of each token bucket and window after the decision
	 * @param inFlight the calls in flight for the key, counting this one when permitted
	 * @param maxConcurrent the limit on calls in flight, 0 for none
	 */
	public RateLimitDecision(String limiterName, String key, boolean permitted, Duration wait, Duration retryAfter,
			boolean concurrencyLimited, List<Quota> quotas, int inFlight, int maxConcurrent) {
		this(limiterName, key, permitted, Durations.saturatedNanos(wait), Durations.saturatedNanos(retryAfter), concurrencyLimited,
				inFlight, maxConcurrent, 0, List.copyOf(quotas), null, 0, null, null);
	}

	private RateLimitDecision(String limiterName, String key, boolean permitted, long waitNanos, long retryAfterNanos,
			boolean concurrencyLimited, int inFlight, int maxConcurrent, long pauseNanos, @Nullable List<Quota> quotas,
			@Nullable RateLimiterSettings settings, long at, @Nullable BucketLevel bucket,
			long @Nullable [] windowQuotas) {
		this.limiterName = Objects.requireNonNull(limiterName, "limiterName");
		this.key = Objects.requireNonNull(key, "key");
		this.permitted = permitted;
		this.waitNanos = Math.max(0, waitNanos);
		this.retryAfterNanos = Math.max(0, retryAfterNanos);
		this.concurrencyLimited = concurrencyLimited;
		this.inFlight = inFlight;
		this.maxConcurrent = maxConcurrent;
		this.pauseNanos = Math.max(0, pauseNanos);
		this.quotas = quotas;
		this.settings = settings;
		this.at = at;
		this.bucket = bucket;
		this.windowQuotas = windowQuotas;
	}

	/**
	 * A decision rebuilt from its parts, as {@link RateLimitExceededException} reads one back after
	 * Java serialization.
	 */
	static RateLimitDecision restored(String limiterName, String key, boolean permitted, long waitNanos,
			long retryAfterNanos, boolean concurrencyLimited, int inFlight, int maxConcurrent, long pauseNanos,
			List<Quota> quotas) {
		return new RateLimitDecision(limiterName, key, permitted, waitNanos, retryAfterNanos, concurrencyLimited,
				inFlight, maxConcurrent, pauseNanos, List.copyOf(quotas), null, 0, null, null);
	}

	/**
	 * A store's decision, whose quotas are computed from the given values when read. For store
	 * implementations; the decision keeps {@code bucket} and {@code windowQuotas} as they are, so
	 * neither may change afterwards.
	 * @param limiterName the limiter that decided
	 * @param key the key the decision is for
	 * @param permitted whether the call may proceed
	 * @param waitNanos how long a permitted caller waits before proceeding (a reservation)
	 * @param retryAfterNanos how long a rejected caller should wait before trying again
	 * @param concurrencyLimited whether a rejected call lacked only a concurrency permit
	 * @param inFlight the calls in flight for the key, counting this one when permitted
	 * @param settings the limiter's settings
	 * @param at the time the quotas are described at
	 * @param bucket the key's bucket as of {@code at}, {@code null} without one
	 * @param windowQuotas each window's remaining quota and nanoseconds until more at {@code at},
	 * in pairs, never changed afterwards; {@code null} without windows
	 * @return the decision
	 */
	public static RateLimitDecision of(String limiterName, String key, boolean permitted, long waitNanos,
			long retryAfterNanos, boolean concurrencyLimited, int inFlight, RateLimiterSettings settings, long at,
			@Nullable BucketLevel bucket, long @Nullable [] windowQuotas) {
		return of(limiterName, key, permitted, waitNanos, retryAfterNanos, concurrencyLimited, inFlight,
				settings.maxConcurrent(), settings, at, bucket, windowQuotas);
	}

	/**
	 * A store's decision as {@link #of(String, String, boolean, long, long, boolean, int,
	 * RateLimiterSettings, long, BucketLevel, long[])} makes it, for a key whose limit on calls in
	 * flight is not {@code max-concurrent}: one with {@code max-concurrent: adaptive}.
	 * @param limiterName the limiter that decided
	 * @param key the key the decision is for
	 * @param permitted whether the call may proceed
	 * @param waitNanos how long a permitted caller waits before proceeding (a reservation)
	 * @param retryAfterNanos how long a rejected caller should wait before trying again
	 * @param concurrencyLimited whether a rejected call lacked only a concurrency permit
	 * @param inFlight the calls in flight for the key, counting this one when permitted
	 * @param concurrencyLimit the key's limit on calls in flight, 0 for none
	 * @param settings the limiter's settings
	 * @param at the time the quotas are described at
	 * @param bucket the key's bucket as of {@code at}, {@code null} without one
	 * @param windowQuotas each window's remaining quota and nanoseconds until more at {@code at},
	 * in pairs, never changed afterwards; {@code null} without windows
	 * @return the decision
	 */
	public static RateLimitDecision of(String limiterName, String key, boolean permitted, long waitNanos,
			long retryAfterNanos, boolean concurrencyLimited, int inFlight, int concurrencyLimit,
			RateLimiterSettings settings, long at, @Nullable BucketLevel bucket, long @Nullable [] windowQuotas) {
		return new RateLimitDecision(limiterName, key, permitted, waitNanos, retryAfterNanos, concurrencyLimited,
				inFlight, concurrencyLimit, 0, null, settings, at, bucket, windowQuotas);
	}

	/**
	 * A rejection because the key is paused (SPEC §10): nothing was consumed, every constraint
	 * shows no quota left until the caller may ask again. Also the state {@link RateLimiter#inspect}
	 * shows for a paused key. For store implementations.
	 * @param limiterName the limiter that decided
	 * @param key the key the decision is for
	 * @param settings the limiter's settings
	 * @param pauseNanos the rest of the pause in force, positive
	 * @param retryAfterNanos when the caller may ask again: the rest of the pause, and its share of
	 * the spread of resumptions
	 * @return the decision
	 */
	public static RateLimitDecision paused(String limiterName, String key, RateLimiterSettings settings,
			long pauseNanos, long retryAfterNanos) {
		return paused(limiterName, key, settings, pauseNanos, retryAfterNanos, 0, settings.maxConcurrent());
	}

	/**
	 * A rejection because the key is paused, as {@link #paused(String, String, RateLimiterSettings,
	 * long, long)} makes it, for a store that knows the key's calls in flight and its limit on them
	 * in force, which is not {@code max-concurrent} for a key with {@code max-concurrent: adaptive}.
	 * @param limiterName the limiter that decided
	 * @param key the key the decision is for
	 * @param settings the limiter's settings
	 * @param pauseNanos the rest of the pause in force, positive
	 * @param retryAfterNanos when the caller may ask again: the rest of the pause, and its share of
	 * the spread of resumptions
	 * @param inFlight the calls in flight for the key
	 * @param concurrencyLimit the key's limit on calls in flight in force, 0 for none
	 * @return the decision
	 */
	public static RateLimitDecision paused(String limiterName, String key, RateLimiterSettings settings,
			long pauseNanos, long retryAfterNanos, int inFlight, int concurrencyLimit) {
		List<Quota> quotas = new ArrayList<>(1 + settings.windows().size());
		Duration reset = Duration.ofNanos(Math.max(0, retryAfterNanos));
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		if (bucketSettings != null) {
			quotas.add(new Quota(Quota.Type.TOKEN_BUCKET, bucketSettings.capacity(), fullRefill(bucketSettings), 0, reset));
		}
		for (WindowSettings window : settings.windows()) {
			quotas.add(new Quota(Quota.Type.WINDOW, window.limit(), window.period(), 0, reset));
		}
		return new RateLimitDecision(limiterName, key, false, 0, retryAfterNanos, false, inFlight, concurrencyLimit,
				Math.max(1, pauseNanos), List.copyOf(quotas), null, 0, null, null);
	}

	/** The time a token bucket takes to refill from empty: its quota's window. */
	private static Duration fullRefill(TokenBucketSettings bucketSettings) {
		return Duration.ofNanos(Durations.mulDivCeil(bucketSettings.capacity(), bucketSettings.refillPeriodNanos(),
				bucketSettings.refillTokens()));
	}

	/**
	 * Returns this admitting decision with the wait its caller actually had: what a caller that
	 * waited for its reserved slot reports. For registry implementations.
	 * @param nanos the wait, in nanoseconds
	 * @return the decision, admitted after that wait
	 */
	public RateLimitDecision waited(long nanos) {
		return new RateLimitDecision(this.limiterName, this.key, true, nanos, this.retryAfterNanos, false, this.inFlight,
				this.maxConcurrent, this.pauseNanos, this.quotas, this.settings, this.at, this.bucket, this.windowQuotas);
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
		return Duration.ofNanos(this.waitNanos);
	}

	/**
	 * Returns how long a rejected caller should wait before trying again; zero for a permitted
	 * call.
	 * @return the time until a retry could succeed, never negative
	 */
	public Duration getRetryAfter() {
		return Duration.ofNanos(this.retryAfterNanos);
	}

	/**
	 * Returns whether a rejected call lacked only a concurrency permit: its token bucket and
	 * windows would have admitted it within its wait. Such a call may get in as soon as a permit
	 * is returned, which cannot be predicted, so it cannot be reserved.
	 * @return whether only a concurrency permit was missing
	 */
	public boolean isConcurrencyLimited() {
		return this.concurrencyLimited;
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
		List<Quota> quotas = this.quotas;
		return (quotas != null) ? quotas : computeQuotas(Objects.requireNonNull(this.settings));
	}

	private List<Quota> computeQuotas(RateLimiterSettings settings) {
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		BucketLevel bucket = this.bucket;
		boolean hasBucket = bucketSettings != null && bucket != null;
		List<WindowSettings> windows = settings.windows();
		Quota[] quotas = new Quota[(hasBucket ? 1 : 0) + windows.size()];
		int next = 0;
		if (hasBucket) {
			long tokens = bucketTokens(bucketSettings, bucket);
			long reset = (tokens >= bucketSettings.capacity()) ? 0
					: bucket.availableAt(bucketSettings, this.at, tokens + 1) - this.at;
			quotas[next++] = new Quota(Quota.Type.TOKEN_BUCKET, bucketSettings.capacity(), fullRefill(bucketSettings),
					tokens, Duration.ofNanos(Math.max(0, reset)));
		}
		long[] windowQuotas = this.windowQuotas;
		for (int i = 0; i < windows.size(); i++) {
			WindowSettings window = windows.get(i);
			quotas[next++] = new Quota(Quota.Type.WINDOW, window.limit(), window.period(),
					Objects.requireNonNull(windowQuotas)[2 * i], Duration.ofNanos(windowQuotas[2 * i + 1]));
		}
		return List.of(quotas);
	}

	private long bucketTokens(TokenBucketSettings bucketSettings, BucketLevel bucket) {
		return bucket.tokensAt(bucketSettings, this.at);
	}

	/**
	 * Returns whether the key was paused when decided, because its partner signalled a throttle
	 * or the application paused it ({@link RateLimiter#pause}): a paused key's calls are rejected,
	 * consuming nothing, until the pause ends.
	 * @return whether a pause was in force
	 */
	public boolean isPaused() {
		return this.pauseNanos > 0;
	}

	/**
	 * Returns the rest of the pause in force for the key when decided.
	 * @return the rest of the pause, zero when the key was not paused
	 */
	public Duration getPause() {
		return Duration.ofNanos(this.pauseNanos);
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
		long[] tightest = { Long.MAX_VALUE, 0 };
		List<Quota> quotas = this.quotas;
		RateLimiterSettings settings = this.settings;
		if (quotas != null) {
			for (Quota candidate : quotas) {
				tighten(tightest, candidate.remaining(), candidate.quota());
			}
		}
		else if (settings != null) {
			TokenBucketSettings bucketSettings = settings.tokenBucket();
			BucketLevel bucket = this.bucket;
			if (bucketSettings != null && bucket != null) {
				tighten(tightest, bucketTokens(bucketSettings, bucket), bucketSettings.capacity());
			}
			long[] windowQuotas = this.windowQuotas;
			for (int i = 0; i < settings.windows().size(); i++) {
				tighten(tightest, Objects.requireNonNull(windowQuotas)[2 * i], settings.windows().get(i).limit());
			}
		}
		if (this.maxConcurrent > 0) {
			// a paused key admits nothing, permits free or not
			tighten(tightest, isPaused() ? 0 : Math.max(0, this.maxConcurrent - this.inFlight), this.maxConcurrent);
		}
		return tightest;
	}

	private static void tighten(long[] tightest, long remaining, long quota) {
		if (remaining < tightest[0]) {
			tightest[0] = remaining;
			tightest[1] = quota;
		}
	}

	/**
	 * Describes the decision without its key, which stays in the process ({@link #getKey()}):
	 * a decision's or a reservation's description may reach a log.
	 * @return the description
	 */
	@Override
	public String toString() {
		return "RateLimitDecision[limiter=" + this.limiterName + ", permitted=" + this.permitted
				+ ", wait=" + getWait() + ", retryAfter=" + getRetryAfter() + (isPaused() ? ", pause=" + getPause() : "") + ", quotas=" + getQuotas() + ", inFlight="
				+ this.inFlight + "]";
	}

	/**
	 * A token bucket's level as a store keeps it, which a store's decision reads only when its
	 * quotas are (most callers ask only whether they were permitted). The decision may read it
	 * later and on another thread, so it must be an immutable snapshot of the bucket as of the
	 * decision's time.
	 */
	public interface BucketLevel {

		/**
		 * Returns the tokens in the bucket at the given time.
		 * @param settings the bucket's settings
		 * @param at a time no earlier than the bucket's own, on the store's clock
		 * @return the tokens
		 */
		long tokensAt(TokenBucketSettings settings, long at);

		/**
		 * Returns the earliest time, no earlier than {@code at}, when the bucket holds the given
		 * tokens.
		 * @param settings the bucket's settings
		 * @param at a time no earlier than the bucket's own, on the store's clock
		 * @param tokens the tokens wanted
		 * @return the time, on the store's clock
		 */
		long availableAt(TokenBucketSettings settings, long at, long tokens);

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
		 * Returns the name of this quota's policy, as the {@code RateLimit-Policy} header and the
		 * endpoint show it: {@code <limiter>-bucket} for the token bucket,
		 * {@code <limiter>-<period>} for a window, such as {@code partner-api-5s} or
		 * {@code partner-api-250ms}.
		 * @param limiterName the name of the limiter the quota belongs to
		 * @return the policy name
		 */
		public String policyName(String limiterName) {
			return limiterName + "-" + ((this.type == Type.TOKEN_BUCKET) ? "bucket" : periodName(this.window));
		}

		/** {@code 5s}, {@code 250ms}: the window part of a policy name. */
		private static String periodName(Duration period) {
			if (period.toNanosPart() == 0) {
				return period.getSeconds() + "s";
			}
			return (period.toNanos() % 1_000_000 == 0) ? period.toMillis() + "ms" : period.toNanos() + "ns";
		}

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
