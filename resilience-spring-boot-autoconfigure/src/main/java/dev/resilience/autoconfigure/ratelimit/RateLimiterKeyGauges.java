package dev.resilience.autoconfigure.ratelimit;

import java.util.OptionalInt;

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
 * how many of its operations failed (a Redis store that did not answer in time). And the gauge
 * {@code resilience.ratelimiter.concurrency.limit}, tagged {@code name} only, the limit on calls in
 * flight in force ({@link RateLimiter#getConcurrencyLimit()}): with {@code max-concurrent: adaptive}
 * the lowest among the limiter's keys held ({@code initial-limit} while none is), with a number
 * that number. It is registered for every limiter with {@code max-concurrent}, fixed or adaptive,
 * so a limiter turned adaptive at run time (or back) keeps its gauge; whether a limiter has
 * {@code max-concurrent} at all cannot change at run time. Registered once the context has
 * started, so that the limiters (whose listeners include the meters) are not created early.
 */
public class RateLimiterKeyGauges implements SmartInitializingSingleton {

	/** Gauge of the keys a limiter's store holds. */
	public static final String KEYS = "resilience.ratelimiter.keys";

	/** Gauge of the limit on calls in flight in force, the lowest of the keys' under adaptive concurrency. */
	public static final String CONCURRENCY_LIMIT = "resilience.ratelimiter.concurrency.limit";

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
		if (limiter.getSettings().maxConcurrent() > 0) {
			// read at each scrape, never on a call's path: an adaptive limiter walks its keys
			Gauge.builder(CONCURRENCY_LIMIT, limiter, RateLimiterKeyGauges::concurrencyLimit)
				.description("Limit on calls in flight of a rate limiter; with max-concurrent: adaptive, "
						+ "the lowest among its keys")
				.tag("name", limiter.getName())
				.strongReference(true)
				.register(this.meterRegistry);
		}
	}

	/** The limit in force, or NaN (no sample) when the limiter cannot tell. */
	private static double concurrencyLimit(RateLimiter limiter) {
		OptionalInt limit = limiter.getConcurrencyLimit();
		return limit.isPresent() ? limit.getAsInt() : Double.NaN;
	}

}
