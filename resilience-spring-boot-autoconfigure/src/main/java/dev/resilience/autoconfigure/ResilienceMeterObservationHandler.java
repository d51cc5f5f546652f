package dev.resilience.autoconfigure;

import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;

import dev.resilience.observation.ResilienceObservationContext;

/**
 * Takes the starter's observations in Spring Boot's group of meter handlers, ahead of Micrometer's
 * default one, and records nothing: the starter's meters of the same names
 * ({@code resilience.ratelimiter.wait}, {@code resilience.pool.checkout},
 * {@code resilience.pool.operation}) are recorded by its listeners, for every call, and a second
 * timer made from the observations would count the observed calls twice. Tracing handlers still
 * see every observation.
 */
final class ResilienceMeterObservationHandler implements MeterObservationHandler<ResilienceObservationContext> {

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof ResilienceObservationContext;
	}

}
