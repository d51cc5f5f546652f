package dev.resilience.autoconfigure.poll;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

import dev.resilience.poll.PollHistory;
import dev.resilience.poll.PollListener;

/**
 * Records every poll that ends in Micrometer: {@code resilience.poll.calls} by outcome
 * ({@code fulfilled}, {@code exhausted}) and {@code resilience.poll.attempts}, the attempts each
 * poll made.
 */
public class PollMetrics implements PollListener {

	/** Counter of polls that ended. */
	public static final String CALLS = "resilience.poll.calls";

	/** Distribution summary of the attempts per poll. */
	public static final String ATTEMPTS = "resilience.poll.attempts";

	private final MeterRegistry registry;

	private final Map<String, Meters> meters = new ConcurrentHashMap<>();

	/**
	 * Creates the listener.
	 * @param registry where to record
	 */
	public PollMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onPollEnded(String name, PollHistory<?> history) {
		Meters meters = this.meters.computeIfAbsent(name, (key) -> new Meters(this.registry, key));
		(history.fulfilled() ? meters.fulfilled : meters.exhausted).increment();
		meters.attempts.record(history.attempts().size());
	}

	/** The meters of one name, looked up once. */
	private static final class Meters {

		private final Counter fulfilled;

		private final Counter exhausted;

		private final DistributionSummary attempts;

		Meters(MeterRegistry registry, String name) {
			this.fulfilled = calls(registry, name, "fulfilled");
			this.exhausted = calls(registry, name, "exhausted");
			this.attempts = DistributionSummary.builder(ATTEMPTS)
				.description("Attempts made by one poll")
				.baseUnit("attempts")
				.tag("name", name)
				.register(registry);
		}

		private static Counter calls(MeterRegistry registry, String name, String outcome) {
			return Counter.builder(CALLS)
				.description("Polls that ended, by outcome")
				.tag("name", name)
				.tag("outcome", outcome)
				.register(registry);
		}

	}

}
