/**
 * Spring MVC and WebFlux support: {@code 429 Too Many Requests} with the IETF {@code RateLimit} header fields.
 */
@NullMarked
package dev.resilience.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
