package dev.resilience.sample.demo;

import org.jspecify.annotations.Nullable;

/**
 * What a run of the fleet demo came to: the workers' calls, and what the partner answered them.
 *
 * @param pause whether the client's limiter paused on the partner's {@code 429}
 * @param limiter the client's limiter: {@code partner-fleet} or {@code partner-fleet-unpaused}
 * @param workers the workers that called at once
 * @param seconds how long they called
 * @param calls the calls the workers made (a call's retries are part of it)
 * @param returned the calls that returned an order
 * @param failed the calls that failed: turned away by the client's limiter (over its guess, or
 * paused), or answered {@code 429} by the partner and not retried
 * @param served the requests the partner served
 * @param throttled the requests the partner answered {@code 429}
 * @param throttledPerServed {@code throttled / served}, to two decimals; {@code null} when nothing was served
 * @param pauses how often the partner's {@code 429} paused the API key (0 without the pause)
 */
public record FleetReport(boolean pause, String limiter, int workers, int seconds, int calls, int returned,
		int failed, int served, int throttled, @Nullable Double throttledPerServed, int pauses) {
}
