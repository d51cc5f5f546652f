package dev.resilience.benchmarks;

import java.time.Duration;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;

import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.RefillStrategy;
import dev.resilience.ratelimit.store.StoreRateLimiterRegistry;

/**
 * Builds the limiters under test, each the way its documentation shows, so that every benchmark
 * configures a library the same way. Only public API of each library is used.
 */
final class Contenders {

	/**
	 * The name of our limiter in every registry built here.
	 */
	static final String NAME = "bench";

	/**
	 * Permits per second high enough that no benchmark thread ever runs out: about a hundred
	 * times what one core can ask for.
	 */
	static final long UNLIMITED_RATE = 1_000_000_000L;

	private Contenders() {
	}

	/**
	 * Returns our limiter with one token bucket.
	 * @param capacity the bucket size
	 * @param refillTokens tokens added per period, continuously
	 * @param refillPeriod the refill period
	 * @return the limiter named {@value #NAME}
	 */
	static RateLimiter oursTokenBucket(long capacity, long refillTokens, Duration refillPeriod) {
		return ours(RateLimiterSettings.builder()
			.tokenBucket(capacity, refillTokens, refillPeriod, RefillStrategy.GREEDY)
			.build());
	}

	/**
	 * Returns our limiter with one exact sliding window (the default window algorithm).
	 * @param limit the most calls admitted within any interval of length {@code period}
	 * @param period the window length
	 * @return the limiter named {@value #NAME}
	 */
	static RateLimiter oursWindow(long limit, Duration period) {
		return ours(RateLimiterSettings.builder().window(limit, period).build());
	}

	/**
	 * Returns our limiter with only a fixed limit on calls in flight per key, rejecting at once.
	 * @param maxConcurrent the most calls in flight per key
	 * @return the limiter named {@value #NAME}
	 */
	static RateLimiter oursMaxConcurrent(int maxConcurrent) {
		return ours(RateLimiterSettings.builder().maxConcurrent(maxConcurrent, Duration.ofMinutes(1)).build());
	}

	/**
	 * Returns our limiter with only {@code max-concurrent: adaptive}, rejecting at once.
	 * @param adaptive the algorithm and its bounds
	 * @return the limiter named {@value #NAME}
	 */
	static RateLimiter oursAdaptive(AdaptiveConcurrencySettings adaptive) {
		return ours(RateLimiterSettings.builder().adaptiveConcurrency(adaptive, Duration.ofMinutes(1)).build());
	}

	private static RateLimiter ours(RateLimiterSettings settings) {
		return StoreRateLimiterRegistry.builder().limiter(NAME, settings).build().get(NAME);
	}

	/**
	 * Returns a local (lock-free) Bucket4j bucket with greedy refill.
	 * @param capacity the bucket size
	 * @param refillTokens tokens added per period
	 * @param refillPeriod the refill period
	 * @return the bucket
	 */
	static Bucket bucket4j(long capacity, long refillTokens, Duration refillPeriod) {
		return Bucket.builder()
			.addLimit((limit) -> limit.capacity(capacity).refillGreedy(refillTokens, refillPeriod))
			.build();
	}

	/**
	 * Returns a cache of Bucket4j buckets by key, the usual way to hold per-key buckets in one
	 * JVM; create buckets with {@code cache.get(key, k -> bucket4j(...))}.
	 * @param maximumSize the most keys held
	 * @return an empty cache
	 */
	static Cache<String, Bucket> bucket4jCache(long maximumSize) {
		return Caffeine.newBuilder().maximumSize(maximumSize).build();
	}

	/**
	 * Returns Resilience4j's default limiter ({@code AtomicRateLimiter}) that rejects at once
	 * rather than waits.
	 * @param limitForPeriod permits per period
	 * @param refreshPeriod the period
	 * @return the limiter
	 */
	static io.github.resilience4j.ratelimiter.RateLimiter resilience4j(int limitForPeriod, Duration refreshPeriod) {
		RateLimiterConfig config = RateLimiterConfig.custom()
			.limitForPeriod(limitForPeriod)
			.limitRefreshPeriod(refreshPeriod)
			.timeoutDuration(Duration.ZERO)
			.build();
		return io.github.resilience4j.ratelimiter.RateLimiter.of(NAME, config);
	}

	/**
	 * Returns Resilience4j's registry whose default configuration is that of
	 * {@link #resilience4j}: a user keys limiters by name with {@code registry.rateLimiter(key)}.
	 * @param limitForPeriod permits per period
	 * @param refreshPeriod the period
	 * @return the registry, empty
	 */
	static io.github.resilience4j.ratelimiter.RateLimiterRegistry resilience4jRegistry(int limitForPeriod,
			Duration refreshPeriod) {
		RateLimiterConfig config = RateLimiterConfig.custom()
			.limitForPeriod(limitForPeriod)
			.limitRefreshPeriod(refreshPeriod)
			.timeoutDuration(Duration.ZERO)
			.build();
		return io.github.resilience4j.ratelimiter.RateLimiterRegistry.of(config);
	}

	/**
	 * Returns Resilience4j's {@code SemaphoreBulkhead} that rejects at once rather than waits.
	 * @param maxConcurrentCalls the most calls in flight
	 * @return the bulkhead
	 */
	static Bulkhead resilience4jBulkhead(int maxConcurrentCalls) {
		return Bulkhead.of(NAME,
				BulkheadConfig.custom().maxConcurrentCalls(maxConcurrentCalls).maxWaitDuration(Duration.ZERO).build());
	}

	/**
	 * Returns Netflix concurrency-limits' {@code SimpleLimiter} (rejects at once) with a
	 * {@code Gradient2Limit} of the given bounds, the algorithm behind our {@code gradient}.
	 * @param adaptive the initial, lowest and highest limit
	 * @return the limiter
	 */
	static SimpleLimiter<Void> netflixGradient2(AdaptiveConcurrencySettings adaptive) {
		return SimpleLimiter.newBuilder()
			.limit(Gradient2Limit.newBuilder()
				.initialLimit(adaptive.initialLimit())
				.minLimit(adaptive.minLimit())
				.maxConcurrency(adaptive.maxLimit())
				.build())
			.build();
	}

	/**
	 * Returns Guava's smooth bursty limiter.
	 * @param permitsPerSecond the rate
	 * @return the limiter
	 */
	static com.google.common.util.concurrent.RateLimiter guava(double permitsPerSecond) {
		return com.google.common.util.concurrent.RateLimiter.create(permitsPerSecond);
	}

}
