/**
 * Requests of Spring Boot's HTTP clients ({@code RestClient.Builder}, {@code RestTemplateBuilder},
 * {@code WebClient.Builder}) put under a rate limiter by host
 * ({@code resilience.rate-limiters.<name>.http-client.hosts}), and their answers read for the
 * partner's throttle signals.
 */
@NullMarked
package dev.resilience.autoconfigure.web.client;

import org.jspecify.annotations.NullMarked;
