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
 * {@code 204}).
 */
@EndpointWebExtension(endpoint = ResilienceEndpoint.class)
public class ResilienceEndpointWebExtension {

	private final ResilienceEndpoint delegate;

	private final @Nullable ResilienceSettingsUpdater updater;

	/**
	 * Creates the extension, without the write operation.
	 * @param delegate the endpoint
	 */
	public ResilienceEndpointWebExtension(ResilienceEndpoint delegate) {
		this(delegate, null);
	}

	/**
	 * Creates the extension.
	 * @param delegate the endpoint
	 * @param updater changes settings for the write operation, or {@code null} for none
	 */
	public ResilienceEndpointWebExtension(ResilienceEndpoint delegate, @Nullable ResilienceSettingsUpdater updater) {
		this.delegate = delegate;
		this.updater = updater;
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
	public WebEndpointResponse<Object> updateSettings(@Selector String name, String properties) {
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
			return new WebEndpointResponse<>(new SettingsRefused(ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		ResilienceSettingsUpdater.Change change;
		try {
			change = updater.update(name, values);
		}
		catch (NoSuchElementException ex) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (IllegalArgumentException | IllegalStateException | NullPointerException ex) {
			return new WebEndpointResponse<>(new SettingsRefused(ex.getMessage()), WebEndpointResponse.STATUS_BAD_REQUEST);
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
	 * Shows one key's state without consuming anything.
	 * @param limiter the limiter's name
	 * @param key the key, or {@code null} for the shared bucket
	 * @return the state, or 404 for an unknown limiter
	 */
	@ReadOperation
	public WebEndpointResponse<KeyState> rateLimiterKey(@Selector String limiter, @Nullable String key) {
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

	/**
	 * Settings changed.
	 *
	 * @param name the name of the limiter, policy, poll or pool
	 * @param settings its settings now, as the endpoint lists them
	 */
	public record SettingsChanged(String name, @Nullable Object settings) {
	}

	/**
	 * A change refused; the old settings stay.
	 *
	 * @param error why, naming the property
	 */
	public record SettingsRefused(@Nullable String error) {
	}

	private static WebEndpointResponse<KeyState> response(@Nullable KeyState state) {
		return (state != null) ? new WebEndpointResponse<>(state)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

}
