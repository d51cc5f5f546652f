/**
 * The {@code resilience} Actuator endpoint.
 */
@NullMarked
package dev.resilience.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
