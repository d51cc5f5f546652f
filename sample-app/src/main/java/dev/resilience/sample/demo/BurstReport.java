package dev.resilience.sample.demo;

import java.util.List;

/**
 * What a burst of calls to the partner API came to.
 *
 * @param calls the calls fired
 * @param admitted the calls admitted at once
 * @param waited the calls admitted after waiting for their slot
 * @param rejected the calls rejected by the client-side limiter, which never reached the partner
 * @param waitedMillis the total time spent waiting
 * @param retryAfterSeconds what the first rejection advised, or 0
 * @param outcomes each call's outcome, in order
 */
public record BurstReport(int calls, int admitted, int waited, int rejected, long waitedMillis,
		long retryAfterSeconds, List<String> outcomes) {
}
