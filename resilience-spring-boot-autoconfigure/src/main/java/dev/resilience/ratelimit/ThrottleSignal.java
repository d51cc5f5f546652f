package dev.resilience.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * Reads a failed call's exception as a partner's throttle signal, for clients whose answers the
 * starter does not read itself: gRPC's {@code RESOURCE_EXHAUSTED}, a vendor SDK's "too many
 * requests" exception. Declare one as a bean: when a call limited by a limiter with
 * {@code pause-on-throttle} fails with an exception that is not an HTTP status the limiter
 * knows, each signal is asked in order, and the first throttle returned pauses the call's key.
 */
@FunctionalInterface
public interface ThrottleSignal {

	/**
	 * Reads one failure.
	 * @param failure the exception the limited call ended with
	 * @return the throttle it signals ({@link Throttle#unspecified()} when it names no wait), or
	 * {@code null} when it is not a throttle signal
	 */
	@Nullable Throttle read(Throwable failure);

}
