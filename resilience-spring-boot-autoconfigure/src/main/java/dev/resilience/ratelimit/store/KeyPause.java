package dev.resilience.ratelimit.store;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.Durations;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;

/**
 * A key's pause (SPEC §10) as a store keeps it, with the pure rules every store follows: a longer
 * pause extends it, a shorter one never shortens it, and the callers turned away while it lasts are
 * told to come back spread over {@code resume-jitter} × its length, so the fleet does not return at
 * one instant.
 *
 * @param until when the pause ends, on the store's clock
 * @param length how long the pause that set {@code until} was, in nanoseconds
 */
public record KeyPause(long until, long length) {

	/**
	 * Returns the pause in force after pausing for {@code nanos} at {@code now}: the current one
	 * when it ends no earlier, else a new one.
	 * @param current the pause stored, or {@code null}
	 * @param now the store's time
	 * @param nanos the pause asked for, positive
	 * @return the pause to store
	 */
	public static KeyPause extend(@Nullable KeyPause current, long now, long nanos) {
		long until = Durations.saturatedAdd(now, nanos);
		return (current != null && current.until >= until) ? current : new KeyPause(until, nanos);
	}

	/**
	 * Returns whether the pause still holds at a time.
	 * @param now the store's time
	 * @return whether it ends after {@code now}
	 */
	public boolean inForceAt(long now) {
		return now < this.until;
	}

	/**
	 * Returns the decision for a call of the paused key: rejected, consuming nothing, with a
	 * Retry-After of the rest of the pause plus {@code spread} × {@code resume-jitter} × its length.
	 * @param limiterName the limiter's name
	 * @param key the key
	 * @param settings the limiter's settings
	 * @param now the store's time, before {@link #until()}
	 * @param spread where among the resumptions this caller comes back, from 0 (at the end of the
	 * pause) to 1; 0 for {@link RateLimitStore#inspect}
	 * @return the decision
	 */
	public RateLimitDecision decision(String limiterName, String key, RateLimiterSettings settings, long now,
			double spread) {
		return decision(limiterName, key, settings, now, spread, 0, settings.maxConcurrent());
	}

	/**
	 * Returns the decision for a call of the paused key as {@link #decision(String, String,
	 * RateLimiterSettings, long, double)} does, showing the key's calls in flight and its limit on
	 * them in force, for a store that keeps them (an adaptive limit is the key's own).
	 */
	RateLimitDecision decision(String limiterName, String key, RateLimiterSettings settings, long now, double spread,
			int inFlight, int concurrencyLimit) {
		long rest = this.until - now;
		long jitter = (long) (spread * settings.pauseOnThrottle().resumeJitter() * this.length);
		return RateLimitDecision.paused(limiterName, key, settings, rest, Durations.saturatedAdd(rest, jitter),
				inFlight, concurrencyLimit);
	}

}
