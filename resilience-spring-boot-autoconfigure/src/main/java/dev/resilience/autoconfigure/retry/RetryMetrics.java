package dev.resilience.autoconfigure.retry;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import dev.resilience.retry.RetryAttempt;
import dev.resilience.retry.RetryCallOutcome;
import dev.resilience.retry.RetryListener;

/**
 * Records retried calls in Micrometer: {@code resilience.retry.calls} by {@code kind}
 * ({@code successful_without_retry}, {@code successful_with_retry}, {@code failed_without_retry},
 * {@code failed_with_retry}, {@code failed_budget_exhausted}) and {@code resilience.retry.attempts},
 * every attempt, by {@code name}.
 */
public class RetryMetrics implements RetryListener {

	/** Counter of calls by how they ended. */
	public static final String CALLS = "resilience.retry.calls";

	/** Counter of attempts. */
	public static final String ATTEMPTS = "resilience.retry.attempts";

	private final MeterRegistry registry;

	private final Map<String, Counter> attempts = new ConcurrentHashMap<>();

	private final Map<String, Map<RetryCallOutcome, Counter>> calls = new ConcurrentHashMap<>();

	/**
	 * Creates the listener.
	 * @param registry where to record
	 */
	public RetryMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onAttempt(String name, RetryAttempt attempt) {
		this.attempts.computeIfAbsent(name, (key) -> Counter.builder(ATTEMPTS)
			.description("Attempts of retried calls, first attempts included")
			.tag("name", key)
			.register(this.registry)).increment();
	}

	@Override
	public void onCallEnded(String name, RetryCallOutcome outcome, List<RetryAttempt> attempts) {
		this.calls.computeIfAbsent(name, (key) -> new ConcurrentHashMap<>())
			.computeIfAbsent(outcome, (kind) -> Counter.builder(CALLS)
				.description("Retried calls by how they ended")
				.tag("name", name)
				.tag("kind", kind.tag())
				.register(this.registry))
			.increment();
	}

}
