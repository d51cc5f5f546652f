package dev.resilience.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the starter's observations; implement it (or extend
 * {@link DefaultResilienceObservationConvention}) to change them, and pass it to
 * {@link ResilienceObservations#of(io.micrometer.observation.ObservationRegistry, ResilienceObservationConvention)}
 * (with Spring Boot, declare it as a bean).
 */
public interface ResilienceObservationConvention extends ObservationConvention<ResilienceObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof ResilienceObservationContext;
	}

}
