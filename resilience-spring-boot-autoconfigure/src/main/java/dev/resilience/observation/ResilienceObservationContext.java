package dev.resilience.observation;

import java.util.Objects;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What one observation of the starter knows, read by a {@link ResilienceObservationConvention}:
 * which observation it is, the name of the limiter, retry, poll or pool, its store, and, as the
 * observation goes on, how it ended and its last attempt. The capability fills it; a convention
 * only reads it.
 */
public class ResilienceObservationContext extends Observation.Context {

	private final ResilienceObservation observation;

	private final String resilienceName;

	private final @Nullable String store;

	private volatile @Nullable String outcome;

	private volatile int attempt;

	private volatile long delayMillis;

	/**
	 * Creates the context of one observation.
	 * @param observation which observation
	 * @param name the limiter's, retry's, poll's or pool's name
	 * @param store the limiter's store, or {@code null} for the other capabilities
	 */
	public ResilienceObservationContext(ResilienceObservation observation, String name, @Nullable String store) {
		this.observation = Objects.requireNonNull(observation, "observation");
		this.resilienceName = Objects.requireNonNull(name, "name");
		this.store = store;
		setName(observation.getName());
	}

	/**
	 * Returns which observation this is.
	 * @return the observation
	 */
	public ResilienceObservation getObservation() {
		return this.observation;
	}

	/**
	 * Returns the name of the limiter, retry, poll or pool observed.
	 * @return the name
	 */
	public String getResilienceName() {
		return this.resilienceName;
	}

	/**
	 * Returns the limiter's store.
	 * @return the store, or {@code null} when the observation is not a rate limiter's
	 */
	public @Nullable String getStore() {
		return this.store;
	}

	/**
	 * Returns how it ended: the {@code outcome} (or, for a retry, the {@code kind}) tag's value.
	 * @return the outcome, or {@code null} while it goes on
	 */
	public @Nullable String getOutcome() {
		return this.outcome;
	}

	/**
	 * Sets how it ended, just before the observation stops.
	 * @param outcome the outcome
	 */
	public void setOutcome(String outcome) {
		this.outcome = outcome;
	}

	/**
	 * Returns the number of the last attempt of a retry or poll.
	 * @return the attempt, from 1, or 0 when none was made or the observation has no attempts
	 */
	public int getAttempt() {
		return this.attempt;
	}

	/**
	 * Returns the delay before the last attempt of a retry.
	 * @return the delay in milliseconds
	 */
	public long getDelayMillis() {
		return this.delayMillis;
	}

	/**
	 * Records an attempt.
	 * @param attempt its number, from 1
	 * @param delayMillis the delay before it, in milliseconds
	 */
	public void setAttempt(int attempt, long delayMillis) {
		this.attempt = attempt;
		this.delayMillis = delayMillis;
	}

}
