package dev.resilience.ratelimit.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * When the next attempt to open the Redis connection may start: at most one attempt in flight, and
 * after each failure a gap before the next one, {@value #FIRST_GAP_MILLIS} ms after the first,
 * doubling after each further failure up to a cap ({@link #cap(Duration)}). A pure rule: time comes
 * in, the next state goes out. Without it, each decision that found the last attempt failed started
 * another, and a Redis that accepts connections and drops them got hundreds of attempts a second.
 * @param inFlight whether an attempt is in flight
 * @param failures how many attempts failed in a row
 * @param nextAt the earliest time of the next attempt, on the runner's ticker (after a failure)
 */
record ConnectPacing(boolean inFlight, int failures, long nextAt) {

	/** The gap after the first failure. */
	static final long FIRST_GAP_MILLIS = 100;

	/** The longest gap, whatever {@code connect-timeout} says. */
	static final Duration MAX_GAP = Duration.ofSeconds(5);

	private static final long FIRST_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(FIRST_GAP_MILLIS);

	/** No attempt made yet, or the last one succeeded: the next may start at once. */
	static final ConnectPacing READY = new ConnectPacing(false, 0, 0);

	/**
	 * The longest gap between two attempts: {@code resilience.redis.connect-timeout}, the wait the
	 * application accepts for Redis at startup, within [{@value #FIRST_GAP_MILLIS} ms, 5 s]; 5 s
	 * when it is zero (startup does not wait, which says nothing of how often to try).
	 * @param connectTimeout {@code resilience.redis.connect-timeout}, not negative
	 * @return the cap, in nanoseconds
	 */
	static long cap(Duration connectTimeout) {
		if (connectTimeout.isZero() || connectTimeout.compareTo(MAX_GAP) > 0) {
			return MAX_GAP.toNanos();
		}
		return Math.max(FIRST_GAP_NANOS, connectTimeout.toNanos());
	}

	/**
	 * Starts an attempt, if one may start now.
	 * @param now the ticker's reading
	 * @return the state with the attempt in flight, or {@code null} when none may start: one is in
	 * flight, or the gap after the last failure has not passed
	 */
	@Nullable ConnectPacing start(long now) {
		if (this.inFlight || (this.failures > 0 && now - this.nextAt < 0)) {
			return null;
		}
		return new ConnectPacing(true, this.failures, this.nextAt);
	}

	/**
	 * The attempt in flight failed: the next waits for the gap of one more failure.
	 * @param now the ticker's reading
	 * @param capNanos the longest gap ({@link #cap(Duration)})
	 * @return the state after the failure
	 */
	ConnectPacing failed(long now, long capNanos) {
		int failures = this.failures + 1;
		// 100 ms << 6 is over 5 s: the shift never overflows
		long gap = Math.min(FIRST_GAP_NANOS << Math.min(failures - 1, 6), capNanos);
		return new ConnectPacing(false, failures, now + gap);
	}

	/**
	 * How long until the next attempt may start, when none is in flight.
	 * @param now the ticker's reading
	 * @return the wait in nanoseconds, zero when it may start now
	 */
	long nanosUntilNext(long now) {
		return (this.failures == 0) ? 0 : Math.max(0, this.nextAt - now);
	}

}
