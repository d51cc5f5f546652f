/**
 * Spring MVC and WebFlux support: {@code 429 Too Many Requests} with the IETF {@code RateLimit} header fields,
 * and {@code 503} / {@code 504} for a pool's timeouts.
 */
@NullMarked
package dev.resilience.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
