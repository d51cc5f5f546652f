package dev.resilience.autoconfigure.ratelimit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * Registers the gauge {@code resilience.ratelimiter.keys}, tagged {@code name} and
 * {@code store}: how many keys each limiter's store holds, for the limiters whose store can tell
 * (the in-memory store can). Registered once the context has started, so that the limiters
 * (whose listeners include the meters) are not created early.
 */
public class RateLimiterKeyGauges implements SmartInitializingSingleton {

	/** Gauge of the keys a limiter's store holds. */
	public static final String KEYS = "resilience.ratelimiter.keys";

	private final ObjectProvider<RateLimiterRegistry> limiters;

	private final MeterRegistry meterRegistry;

	/**
	 * Creates the gauges.
	 * @param limiters the limiters, looked up when the context has started
	 * @param meterRegistry where to register the gauges
	 */
	public RateLimiterKeyGauges(ObjectProvider<RateLimiterRegistry> limiters, MeterRegistry meterRegistry) {
		this.limiters = limiters;
		this.meterRegistry = meterRegistry;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.limiters.ifAvailable((registry) -> registry.getAll().forEach(this::register));
	}

	private void register(RateLimiter limiter) {
		if (limiter.getKeyCount().isPresent()) {
			Gauge.builder(KEYS, limiter, (counted) -> counted.getKeyCount().orElse(0))
				.description("Keys a rate limiter's store holds")
				.tag("name", limiter.getName())
				.tag("store", limiter.getStoreType())
				.strongReference(true)
				.register(this.meterRegistry);
		}
	}

}
