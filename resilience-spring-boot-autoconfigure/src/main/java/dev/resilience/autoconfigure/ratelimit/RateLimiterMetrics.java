package dev.resilience.autoconfigure.ratelimit;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiter;

/**
 * Records every rate-limit decision in Micrometer: {@code resilience.ratelimiter.calls} by
 * outcome ({@code permitted}, {@code waited}, {@code rejected}) and store, and
 * {@code resilience.ratelimiter.wait}, the time each admitted call waited (zero when admitted at
 * once).
 */
public class RateLimiterMetrics implements RateLimitListener {

	/** Counter of decisions. */
	public static final String CALLS = "resilience.ratelimiter.calls";

	/** Timer of the waits of admitted calls. */
	public static final String WAIT = "resilience.ratelimiter.wait";

	private final MeterRegistry registry;

	private final Map<String, Meters> meters = new ConcurrentHashMap<>();

	/**
	 * Creates the listener.
	 * @param registry where to record
	 */
	public RateLimiterMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onDecision(RateLimiter limiter, RateLimitDecision decision) {
		Meters meters = this.meters.computeIfAbsent(limiter.getName(), (name) -> new Meters(this.registry, limiter));
		if (!decision.isPermitted()) {
			meters.rejected.increment();
			return;
		}
		(decision.getWait().isZero() ? meters.permitted : meters.waited).increment();
		meters.wait.record(decision.getWait());
	}

	/** The meters of one limiter, looked up once. */
	private static final class Meters {

		private final Counter permitted;

		private final Counter waited;

		private final Counter rejected;

		private final Timer wait;

		Meters(MeterRegistry registry, RateLimiter limiter) {
			this.permitted = calls(registry, limiter, "permitted");
			this.waited = calls(registry, limiter, "waited");
			this.rejected = calls(registry, limiter, "rejected");
			this.wait = Timer.builder(WAIT)
				.description("Time admitted calls waited for a rate-limit slot")
				.tag("name", limiter.getName())
				.register(registry);
		}

		private static Counter calls(MeterRegistry registry, RateLimiter limiter, String outcome) {
			return Counter.builder(CALLS)
				.description("Calls decided by a rate limiter")
				.tag("name", limiter.getName())
				.tag("outcome", outcome)
				.tag("store", limiter.getStoreType())
				.register(registry);
		}

	}

}
