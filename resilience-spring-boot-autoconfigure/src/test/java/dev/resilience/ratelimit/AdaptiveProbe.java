package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * Runs the probe of a key with {@code max-concurrent: adaptive} (SPEC §11) through the public
 * limiter API, for tests that need a key past it: a key's limit is {@code min-limit} from its first
 * use (or a change of its adaptive settings) until {@value #CALLS} calls that started since have
 * ended, and is then at the limit it goes on from ({@code initial-limit} for a new key), with
 * {@code latency} as the lowest latency. Time moves only by the test's clock.
 */
public final class AdaptiveProbe {

	/** The calls a probe waits for, as the in-memory store's adaptive limit counts them. */
	public static final int CALLS = 5;

	private AdaptiveProbe() {
	}

	/**
	 * Runs {@value #CALLS} calls of the key one at a time, each holding its permit while the clock
	 * moves by {@code latency}.
	 * @param limiter the limiter
	 * @param key the key
	 * @param advance moves the test's clock forward by a duration
	 * @param latency how long each call takes, positive: the lowest latency the probe measures
	 */
	public static void run(RateLimiter limiter, String key, Consumer<Duration> advance, Duration latency) {
		for (int i = 0; i < CALLS; i++) {
			try (Permit permit = limiter.acquire(key, 1, Duration.ZERO)) {
				advance.accept(latency);
			}
		}
	}

}
