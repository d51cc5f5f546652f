package dev.resilience.autoconfigure.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.KeyState;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint.ResilienceDescriptor;
import dev.resilience.autoconfigure.refresh.ResilienceSettingsUpdater;

/**
 * The {@link ResilienceEndpoint}'s HTTP side: an unknown limiter is {@code 404 Not Found}, for
 * {@code DELETE} too (a technology-neutral operation returning nothing would answer
 * {@code 204}). {@code GET /actuator/resilience/methods} shows the annotated methods
 * ({@link ResilienceMethods}) and, with {@link ResilienceEvents},
 * {@code GET /actuator/resilience/events} the recent events: an endpoint has one path below its
 * own, so the read of a limiter answers them, and no rate limiter may be named {@value #METHODS}
 * or {@value #EVENTS}.
 */
@EndpointWebExtension(endpoint = ResilienceEndpoint.class)
public class ResilienceEndpointWebExtension {

	/** The path below the endpoint's that shows the recent events. */
	public static final String EVENTS = "events";

	/** The path below the endpoint's that shows the annotated methods. */
	public static final String METHODS = "methods";

	private final ResilienceEndpoint delegate;

	private final @Nullable ResilienceEvents events;

	private final @Nullable ResilienceSettingsUpdater updater;

	private final ResilienceMethods methods;

	/**
	 * Creates the extension, without the recent events and the write operation, and with no
	 * annotated methods.
	 * @param delegate the endpoint
	 */
	public ResilienceEndpointWebExtension(ResilienceEndpoint delegate) {
		this(delegate, null, null, new ResilienceMethods(null, null, null, null, null));
	}

	/**
	 * Creates the extension.
	 * @param delegate the endpoint
	 * @param events the recent events, or {@code null} for none
	 * @param updater changes settings for the write operation, or {@code null} for none
	 * @param methods the annotated methods
	 */
	public ResilienceEndpointWebExtension(ResilienceEndpoint delegate, @Nullable ResilienceEvents events,
			@Nullable ResilienceSettingsUpdater updater, ResilienceMethods methods) {
		this.delegate = delegate;
		this.events = events;
		this.updater = updater;
		this.methods = methods;
	}

	/**
	 * Shows one key's state without consuming anything or, for {@value #METHODS}, the annotated
	 * methods, or, for {@value #EVENTS}, the recent events.
	 * @param limiter the limiter's name, {@value #METHODS} or {@value #EVENTS}
	 * @param key the key, or {@code null} for the shared bucket; not for events
	 * @param name only the events of this name; only for events
	 * @param kind only the events of this {@link ResilienceEvents.Kind#tag() kind}; only for events
	 * @return the state, 404 for an unknown limiter, the methods or the events; 400 for a parameter
	 * that does not belong or an unknown kind
	 */
	@ReadOperation
	public WebEndpointResponse<?> rateLimiterKey(@Selector String limiter, @Nullable String key,
			@Nullable String name, @Nullable String kind) {
		if (METHODS.equals(limiter)) {
			if (key != null || name != null || kind != null) {
				return badRequest("GET /actuator/resilience/methods takes no parameters");
			}
			return new WebEndpointResponse<>(this.methods.describe());
		}
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
	 * Changes the settings of a rate limiter, retry policy, poll or pool, as its properties would
	 * at startup: the body's {@code properties} are paths relative to its properties
	 * ({@code windows[0].limit}, {@code max-wait}) with values as in {@code application.yml}.
	 * Needs {@code management.endpoint.resilience.access=unrestricted}.
	 * @param name the name of the limiter, policy, poll or pool
	 * @param properties the values to set: the body's {@code properties} object, which
	 * {@link ResilienceWriteBodyFilter} hands on as a JSON string
	 * @return its settings now; 400 with the message naming the property when a value is wrong
	 * (the old settings stay), 404 when nothing has that name
	 */
	@WriteOperation
	public WebEndpointResponse<?> updateSettings(@Selector String name, String properties) {
		ResilienceSettingsUpdater updater = this.updater;
		if (updater == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		Map<String, String> values = new LinkedHashMap<>();
		try {
			ResilienceWriteBodyFilter.ResilienceWriteBody.parse(properties)
				.forEach((path, value) -> values.put(path, (value != null) ? value.toString() : null));
		}
		catch (IllegalArgumentException ex) {
			return badRequest(ex.getMessage());
		}
		ResilienceSettingsUpdater.Change change;
		try {
			change = updater.update(name, values);
		}
		catch (NoSuchElementException ex) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (IllegalArgumentException | IllegalStateException | NullPointerException ex) {
			return badRequest(ex.getMessage());
		}
		ResilienceDescriptor all = this.delegate.resilience();
		Object settings = switch (change.kind()) {
			case RATE_LIMITER -> all.rateLimiters().get(name);
			case RETRY -> all.retries().get(name);
			case POLL -> all.polls().get(name);
			case POOL -> all.pools().get(name);
		};
		return new WebEndpointResponse<>(new SettingsChanged(name, settings));
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

	private static WebEndpointResponse<Refusal> badRequest(@Nullable String message) {
		return new WebEndpointResponse<>(new Refusal(message), WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	private static WebEndpointResponse<KeyState> response(@Nullable KeyState state) {
		return (state != null) ? new WebEndpointResponse<>(state)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/**
	 * Settings changed.
	 *
	 * @param name the name of the limiter, policy, poll or pool
	 * @param settings its settings now, as the endpoint lists them
	 */
	public record SettingsChanged(String name, @Nullable Object settings) {
	}

	/**
	 * Why a request was refused: a parameter that does not belong, or a change of settings whose
	 * old settings stay.
	 *
	 * @param error the reason, naming the parameter or property and what is allowed
	 */
	public record Refusal(@Nullable String error) {
	}

}
