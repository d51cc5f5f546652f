package dev.resilience.autoconfigure.ratelimit;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * Registers the meters of each limiter's store, tagged {@code name} and {@code store}: the gauge
 * {@code resilience.ratelimiter.keys}, how many keys the store holds, for the limiters whose store
 * can tell (the in-memory store can); and the counter {@code resilience.ratelimiter.store.errors},
 * how many of its operations failed (a Redis store that did not answer in time). Registered once the context has started, so that the limiters
 * (whose listeners include the meters) are not created early.
 */
public class RateLimiterKeyGauges implements SmartInitializingSingleton {

	/** Gauge of the keys a limiter's store holds. */
	public static final String KEYS = "resilience.ratelimiter.keys";

	/** Counter of the failed operations of a limiter's store. */
	public static final String STORE_ERRORS = "resilience.ratelimiter.store.errors";

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
		FunctionCounter.builder(STORE_ERRORS, limiter, RateLimiter::getStoreErrors)
			.description("Operations of a rate limiter's store that failed, decided by its on-store-failure")
			.tag("name", limiter.getName())
			.tag("store", limiter.getStoreType())
			.register(this.meterRegistry);
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
