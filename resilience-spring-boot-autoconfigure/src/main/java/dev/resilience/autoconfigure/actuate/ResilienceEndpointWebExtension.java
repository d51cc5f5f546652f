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
 * {@code 204}).
 */
@EndpointWebExtension(endpoint = ResilienceEndpoint.class)
public class ResilienceEndpointWebExtension {

	private final ResilienceEndpoint delegate;

	/**
	 * Creates the extension.
	 * @param delegate the endpoint
	 */
	public ResilienceEndpointWebExtension(ResilienceEndpoint delegate) {
		this.delegate = delegate;
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

	private static WebEndpointResponse<KeyState> response(@Nullable KeyState state) {
		return (state != null) ? new WebEndpointResponse<>(state)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

}
