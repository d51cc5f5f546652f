package dev.resilience.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.KeyState;

/**
 * The {@link ResilienceEndpoint}'s HTTP side: an unknown limiter is {@code 404 Not Found}, for
 * {@code DELETE} too (a technology-neutral operation returning nothing would answer
 * {@code 204}). With {@link ResilienceEvents}, {@code GET /actuator/resilience/events} shows the
 * recent events: an endpoint has one path below its own, so the read of a limiter answers it, and
 * no rate limiter may be named {@value #EVENTS}.
 */
@EndpointWebExtension(endpoint = ResilienceEndpoint.class)
public class ResilienceEndpointWebExtension {

	/** The path below the endpoint's that shows the recent events. */
	public static final String EVENTS = "events";

	private final ResilienceEndpoint delegate;

	private final @Nullable ResilienceEvents events;

	/**
	 * Creates the extension.
	 * @param delegate the endpoint
	 */
	public ResilienceEndpointWebExtension(ResilienceEndpoint delegate) {
		this(delegate, null);
	}

	/**
	 * Creates the extension that shows recent events too.
	 * @param delegate the endpoint
	 * @param events the recent events, or {@code null} for none
	 */
	public ResilienceEndpointWebExtension(ResilienceEndpoint delegate, @Nullable ResilienceEvents events) {
		this.delegate = delegate;
		this.events = events;
	}

	/**
	 * Shows one key's state without consuming anything or, for {@value #EVENTS}, the recent events.
	 * @param limiter the limiter's name, or {@value #EVENTS}
	 * @param key the key, or {@code null} for the shared bucket; not for events
	 * @param name only the events of this name; only for events
	 * @param kind only the events of this {@link ResilienceEvents.Kind#tag() kind}; only for events
	 * @return the state, 404 for an unknown limiter, or the events; 400 for a parameter that does
	 * not belong or an unknown kind
	 */
	@ReadOperation
	public WebEndpointResponse<?> rateLimiterKey(@Selector String limiter, @Nullable String key,
			@Nullable String name, @Nullable String kind) {
		ResilienceEvents events = this.events;
		if (events != null && EVENTS.equals(limiter)) {
			if (key != null) {
				return badRequest("Parameter 'key' is not one of GET /actuator/resilience/events; use 'name' or 'kind'");
			}
			ResilienceEvents.Kind only = null;
			if (kind != null) {
				try {
					only = ResilienceEvents.Kind.of(kind);
				}
				catch (IllegalArgumentException ex) {
					return badRequest(ex.getMessage());
				}
			}
			return new WebEndpointResponse<>(events.recent(name, only));
		}
		if (name != null || kind != null) {
			return badRequest("Parameters 'name' and 'kind' belong to GET /actuator/resilience/events; a limiter takes 'key'");
		}
		return response(this.delegate.rateLimiterKey(limiter, key));
	}

	/**
	 * Resets one key.
	 * @param limiter the limiter's name
	 * @param key the key, or {@code null} for the shared bucket
	 * @return the state after the reset, or 404 for an unknown limiter
	 */
	@DeleteOperation
	public WebEndpointResponse<KeyState> resetRateLimiterKey(@Selector String limiter, @Nullable String key) {
		return response(this.delegate.resetRateLimiterKey(limiter, key));
	}

	private static WebEndpointResponse<Refusal> badRequest(String message) {
		return new WebEndpointResponse<>(new Refusal(message), WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	private static WebEndpointResponse<KeyState> response(@Nullable KeyState state) {
		return (state != null) ? new WebEndpointResponse<>(state)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/**
	 * Why a request was refused.
	 *
	 * @param error the reason, naming the parameter and what is allowed
	 */
	public record Refusal(String error) {
	}

}
