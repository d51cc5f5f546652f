package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.resilience.internal.DurationText;
import dev.resilience.internal.Durations;

/**
 * How a limiter follows its partner's throttle signals (SPEC §10): a limited call that ends with a
 * throttled answer pauses the call's key, on every instance that shares the limiter's store.
 *
 * @param enabled whether throttle signals pause keys; off by default
 * @param statuses the HTTP statuses that mean "slow down", such as 429 and 503
 * @param defaultPause the pause for a throttled answer that names no wait
 * @param maxPause the longest pause; a longer one asked for is cut to this
 * @param resumeJitter the fraction of a pause over which the callers' resumptions are spread, 0 to 1
 */
public record PauseOnThrottleSettings(boolean enabled, Set<Integer> statuses, Duration defaultPause, Duration maxPause,
		double resumeJitter) {

	/** Pausing off: the default of every limiter. */
	public static final PauseOnThrottleSettings DISABLED = new PauseOnThrottleSettings(false, Set.of(429, 503),
			Duration.ofSeconds(1), Duration.ofMinutes(10), 0.1);

	/**
	 * Checks the settings.
	 * @param enabled see the record component
	 * @param statuses see the record component
	 * @param defaultPause see the record component
	 * @param maxPause see the record component
	 * @param resumeJitter see the record component
	 * @throws IllegalArgumentException naming the property whose value is out of range
	 */
	public PauseOnThrottleSettings {
		Objects.requireNonNull(defaultPause, "defaultPause");
		Objects.requireNonNull(maxPause, "maxPause");
		statuses = Set.copyOf(new TreeSet<>(Objects.requireNonNull(statuses, "statuses")));
		for (int status : statuses) {
			if (status < 100 || status > 599) {
				throw new IllegalArgumentException(
						"pause-on-throttle.statuses must hold HTTP statuses (100 to 599) but held " + status);
			}
		}
		if (defaultPause.isNegative() || defaultPause.isZero()) {
			throw new IllegalArgumentException(
					"pause-on-throttle.default-pause must be positive but was " + DurationText.of(defaultPause));
		}
		if (maxPause.compareTo(defaultPause) < 0) {
			throw new IllegalArgumentException("pause-on-throttle.max-pause (" + DurationText.of(maxPause)
					+ ") must not be shorter than pause-on-throttle.default-pause (" + DurationText.of(defaultPause)
					+ ")");
		}
		if (!(resumeJitter >= 0 && resumeJitter <= 1)) {
			throw new IllegalArgumentException("pause-on-throttle.resume-jitter must be between 0 and 1 but was "
					+ resumeJitter);
		}
	}

	/**
	 * Returns the pause a throttle asks for, as this limiter applies it: the wait it names, or
	 * {@link #defaultPause()} when it names none, never more than {@link #maxPause()}.
	 * @param throttle the throttle
	 * @return the pause, positive
	 */
	public Duration pauseFor(Throttle throttle) {
		Duration requested = throttle.requested();
		Duration pause = (requested != null) ? requested : this.defaultPause;
		return (pause.compareTo(this.maxPause) > 0) ? this.maxPause : pause;
	}

	/**
	 * Returns {@link #maxPause()} in nanoseconds.
	 * @return the longest pause in nanoseconds
	 */
	public long maxPauseNanos() {
		return Durations.saturatedNanos(this.maxPause);
	}

}
