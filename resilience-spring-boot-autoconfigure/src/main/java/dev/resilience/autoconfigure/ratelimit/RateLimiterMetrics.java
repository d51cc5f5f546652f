package dev.resilience.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitListener;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.Throttle;

/**
 * Records every rate-limit decision in Micrometer: {@code resilience.ratelimiter.calls} by
 * outcome ({@code permitted}, {@code waited}, {@code rejected}) and store, and
 * {@code resilience.ratelimiter.wait}, the time each admitted call waited (zero when admitted at
 * once). Counts the pauses of keys (SPEC §10) in {@code resilience.ratelimiter.pauses} by
 * {@link Throttle.Cause#tag() cause}; never by key, which stays in the process.
 */
public class RateLimiterMetrics implements RateLimitListener {

	/** Counter of decisions. */
	public static final String CALLS = "resilience.ratelimiter.calls";

	/** Timer of the waits of admitted calls. */
	public static final String WAIT = "resilience.ratelimiter.wait";

	/** Counter of the pauses of keys, by cause. */
	public static final String PAUSES = "resilience.ratelimiter.pauses";

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
		Meters meters = meters(limiter);
		if (!decision.isPermitted()) {
			meters.rejected.increment();
			return;
		}
		(decision.getWait().isZero() ? meters.permitted : meters.waited).increment();
		meters.wait.record(decision.getWait());
	}

	@Override
	public void onPause(RateLimiter limiter, String key, Duration pause, Throttle.Cause cause) {
		meters(limiter).pauses(this.registry, limiter)[cause.ordinal()].increment();
	}

	private Meters meters(RateLimiter limiter) {
		return this.meters.computeIfAbsent(limiter.getName(), (name) -> new Meters(this.registry, limiter));
	}

	/** The meters of one limiter, looked up once. */
	private static final class Meters {

		private final Counter permitted;

		private final Counter waited;

		private final Counter rejected;

		private final Timer wait;

		/**
		 * The pause counters by cause, registered all at once: a counter that first appears at 1
		 * shows no increase in Prometheus, which would hide the first pause. So a limiter that
		 * pauses has them from its first decision; one whose pausing was turned on later, from
		 * its first pause.
		 */
		private volatile Counter @Nullable [] pauses;

		Meters(MeterRegistry registry, RateLimiter limiter) {
			this.permitted = calls(registry, limiter, "permitted");
			this.waited = calls(registry, limiter, "waited");
			this.rejected = calls(registry, limiter, "rejected");
			this.wait = Timer.builder(WAIT)
				.description("Time admitted calls waited for a rate-limit slot")
				.tag("name", limiter.getName())
				.register(registry);
			if (limiter.getSettings().pauseOnThrottle().enabled()) {
				this.pauses = registerPauses(registry, limiter);
			}
		}

		Counter[] pauses(MeterRegistry registry, RateLimiter limiter) {
			Counter[] pauses = this.pauses;
			if (pauses == null) {
				// a race registers the same counters twice: the registry hands out the ones it has
				pauses = registerPauses(registry, limiter);
				this.pauses = pauses;
			}
			return pauses;
		}

		private static Counter[] registerPauses(MeterRegistry registry, RateLimiter limiter) {
			Throttle.Cause[] causes = Throttle.Cause.values();
			Counter[] pauses = new Counter[causes.length];
			for (Throttle.Cause cause : causes) {
				pauses[cause.ordinal()] = Counter.builder(PAUSES)
					.description("Pauses of a rate limiter's keys, by where their length came from")
					.tag("name", limiter.getName())
					.tag("cause", cause.tag())
					.register(registry);
			}
			return pauses;
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
