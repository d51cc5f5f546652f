/**
 * Settings changed at run time: through the {@code resilience} endpoint's write operation, and
 * when Spring Cloud publishes an {@code EnvironmentChangeEvent}.
 */
@NullMarked
package dev.resilience.autoconfigure.refresh;

import org.jspecify.annotations.NullMarked;
