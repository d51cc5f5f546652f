/**
 * Spring wiring of retrying: {@code resilience.retries.*} properties, the
 * {@code @Retryable} advisor, Retry-After from Spring's HTTP clients and the retry meters.
 */
@NullMarked
package dev.resilience.autoconfigure.retry;

import org.jspecify.annotations.NullMarked;
