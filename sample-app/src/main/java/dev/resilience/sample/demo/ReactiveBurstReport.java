package dev.resilience.sample.demo;

import java.util.List;

/**
 * What a burst of {@code Mono} calls came to: all assembled first, then subscribed together.
 *
 * @param calls the {@code Mono}s assembled and then subscribed
 * @param fetched the calls the limiter admitted
 * @param rejected the calls the limiter rejected when subscribed, which never reached the partner
 * @param outcomes each call's outcome, in the order they ended
 */
public record ReactiveBurstReport(int calls, int fetched, int rejected, List<String> outcomes) {
}
