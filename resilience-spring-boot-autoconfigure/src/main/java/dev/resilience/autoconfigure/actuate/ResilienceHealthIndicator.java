package dev.resilience.autoconfigure.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolStats;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.StoreStatus;

/**
 * The {@code resilience} health contributor: {@code DOWN} while the store of some rate limiter is
 * unreachable (a Redis store whose server does not answer within its decision timeout), with one
 * detail per limiter: its store, whether it is reachable, its failed operations so far and, when
 * unreachable, why; and one detail per pool with what it holds now. A pool that is busy or
 * starved is not down: its counts are there to read, its meters to alert on.
 */
public class ResilienceHealthIndicator implements HealthIndicator {

	private final RateLimiterRegistry rateLimiters;

	private final List<ConnectionPool<?>> pools;

	/**
	 * Creates the indicator.
	 * @param rateLimiters the limiters whose stores to check
	 * @param pools the pools to describe
	 */
	public ResilienceHealthIndicator(RateLimiterRegistry rateLimiters, List<ConnectionPool<?>> pools) {
		this.rateLimiters = rateLimiters;
		this.pools = List.copyOf(pools);
	}

	@Override
	public Health health() {
		boolean up = true;
		Map<String, Object> limiters = new LinkedHashMap<>();
		for (RateLimiter limiter : this.rateLimiters.getAll()) {
			StoreStatus status = limiter.checkStoreStatus();
			up &= status.reachable();
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("store", limiter.getStoreType());
			detail.put("status", (status.reachable() ? Status.UP : Status.DOWN).getCode());
			detail.put("errors", status.errors());
			if (status.error() != null) {
				detail.put("error", status.error());
			}
			limiters.put(limiter.getName(), detail);
		}
		Map<String, ConnectionPoolStats> pools = new LinkedHashMap<>();
		this.pools.forEach((pool) -> pools.put(pool.getName(), pool.getStats()));
		return Health.status(up ? Status.UP : Status.DOWN)
			.withDetail("rateLimiters", limiters)
			.withDetail("pools", pools)
			.build();
	}

}
