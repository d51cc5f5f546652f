package dev.resilience.observation;

import java.util.Objects;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Where a capability reports its observations: an {@link ObservationRegistry} and, optionally, a
 * convention of one's own. Each capability's builder takes one; {@link #none()} observes nothing.
 * <p>
 * Capabilities ask {@link #isNoop()} before making anything for an observation, so that a
 * registry without handlers costs one check, and a call that is not observed (an admitted call
 * that did not wait, a call that needed no retry) costs nothing at all.
 */
public final class ResilienceObservations {

	private static final ResilienceObservations NONE = new ResilienceObservations(ObservationRegistry.NOOP, null);

	private static final ResilienceObservationConvention DEFAULT_CONVENTION = new DefaultResilienceObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable ResilienceObservationConvention convention;

	private ResilienceObservations(ObservationRegistry registry, @Nullable ResilienceObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	/**
	 * Returns the observations that observe nothing.
	 * @return the instance without a registry
	 */
	public static ResilienceObservations none() {
		return NONE;
	}

	/**
	 * Returns the observations reported to a registry with the default convention.
	 * @param registry the registry
	 * @return the observations
	 */
	public static ResilienceObservations of(ObservationRegistry registry) {
		return of(registry, null);
	}

	/**
	 * Returns the observations reported to a registry, named and tagged by a convention of one's
	 * own.
	 * @param registry the registry
	 * @param convention the convention, or {@code null} for {@link DefaultResilienceObservationConvention}
	 * @return the observations
	 */
	public static ResilienceObservations of(ObservationRegistry registry,
			@Nullable ResilienceObservationConvention convention) {
		Objects.requireNonNull(registry, "registry");
		return (registry == ObservationRegistry.NOOP && convention == null) ? NONE
				: new ResilienceObservations(registry, convention);
	}

	/**
	 * Returns whether nothing is observed: no registry, or one without handlers.
	 * @return whether observations would be no-ops
	 */
	public boolean isNoop() {
		return this.registry.isNoop();
	}

	/**
	 * Returns the observation current on this thread, to be the parent of one started later on
	 * another thread.
	 * @return the current observation, or {@code null} when there is none or nothing is observed
	 */
	public @Nullable Observation current() {
		return this.registry.isNoop() ? null : this.registry.getCurrentObservation();
	}

	/**
	 * Starts an observation.
	 * @param observation which observation
	 * @param name the limiter's, retry's, poll's or pool's name
	 * @param store the limiter's store, or {@code null}
	 * @param parent its parent, or {@code null} for the observation current on this thread
	 * @return the started observation, a no-op one when nothing is interested
	 */
	public Observation start(ResilienceObservation observation, String name, @Nullable String store,
			@Nullable Observation parent) {
		if (this.registry.isNoop()) {
			return Observation.NOOP;
		}
		Observation started = observation.observation(this.convention, DEFAULT_CONVENTION,
				() -> new ResilienceObservationContext(observation, name, store), this.registry);
		if (parent != null) {
			started.parentObservation(parent);
		}
		return started.start();
	}

	/**
	 * Stops an observation with its outcome and, when it failed, the failure.
	 * @param observation the observation {@link #start started}
	 * @param outcome the {@code outcome} (for a retry, {@code kind}) tag's value
	 * @param failure the failure, or {@code null}
	 */
	public static void stop(Observation observation, String outcome, @Nullable Throwable failure) {
		if (observation.isNoop()) {
			return;
		}
		((ResilienceObservationContext) observation.getContext()).setOutcome(outcome);
		if (failure != null) {
			observation.error(failure);
		}
		observation.stop();
	}

	/**
	 * Records an attempt of a retry or poll: its number and the delay before it become the
	 * high-cardinality key values.
	 * @param observation the observation {@link #start started}
	 * @param attempt the attempt's number, from 1
	 * @param delayMillis the delay before it, in milliseconds
	 */
	public static void attempted(Observation observation, int attempt, long delayMillis) {
		if (!observation.isNoop()) {
			((ResilienceObservationContext) observation.getContext()).setAttempt(attempt, delayMillis);
		}
	}

	/**
	 * Records an attempt of a retried call as {@link #attempted} does, and signals the event
	 * {@link ResilienceObservation.Events#ATTEMPT}.
	 * @param observation the observation {@link #start started}
	 * @param attempt the attempt's number, from 1
	 * @param outcome how the attempt ended, such as {@code failed}
	 * @param delayMillis the delay before it, in milliseconds
	 */
	public static void retryAttempt(Observation observation, int attempt, String outcome, long delayMillis) {
		if (!observation.isNoop()) {
			attempted(observation, attempt, delayMillis);
			observation.event(ResilienceObservation.Events.ATTEMPT.format(attempt, outcome, delayMillis));
		}
	}

}
