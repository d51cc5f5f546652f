/**
 * Spring wiring of rate limiting: properties, auto-configuration, the advisor, metrics and Spring MVC support.
 */
@NullMarked
package dev.resilience.autoconfigure.ratelimit;

import org.jspecify.annotations.NullMarked;
