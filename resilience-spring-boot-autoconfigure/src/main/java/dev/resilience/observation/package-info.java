/**
 * Micrometer Observation of the four capabilities: the observations and their key names
 * ({@link dev.resilience.observation.ResilienceObservation}), the context each carries, the
 * convention that names and tags them, and {@link dev.resilience.observation.ResilienceObservations},
 * which a capability's builder takes. Without one, nothing is observed.
 */
@NullMarked
package dev.resilience.observation;

import org.jspecify.annotations.NullMarked;
