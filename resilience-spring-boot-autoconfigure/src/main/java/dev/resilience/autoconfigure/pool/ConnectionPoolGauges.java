package dev.resilience.autoconfigure.pool;

import java.util.function.ToIntFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolStats;

/**
 * Registers the gauges {@code resilience.pool.active}, {@code .idle} and {@code .pending}, tagged
 * {@code pool}, for every pool bean, once the context has started.
 */
public class ConnectionPoolGauges implements SmartInitializingSingleton {

	/** Gauge of the connections handed out. */
	public static final String ACTIVE = "resilience.pool.active";

	/** Gauge of the connections ready in the pool. */
	public static final String IDLE = "resilience.pool.idle";

	/** Gauge of the callers waiting for a connection. */
	public static final String PENDING = "resilience.pool.pending";

	private final ObjectProvider<ConnectionPool<?>> pools;

	private final MeterRegistry meterRegistry;

	/**
	 * Creates the gauges.
	 * @param pools the pools, looked up when the context has started
	 * @param meterRegistry where to register the gauges
	 */
	public ConnectionPoolGauges(ObjectProvider<ConnectionPool<?>> pools, MeterRegistry meterRegistry) {
		this.pools = pools;
		this.meterRegistry = meterRegistry;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.pools.orderedStream().forEach((pool) -> {
			register(ACTIVE, "Connections of a pool handed out", pool, ConnectionPoolStats::active);
			register(IDLE, "Connections ready in a pool", pool, ConnectionPoolStats::idle);
			register(PENDING, "Callers waiting for a connection of a pool", pool, ConnectionPoolStats::pending);
		});
	}

	private void register(String name, String description, ConnectionPool<?> pool,
			ToIntFunction<ConnectionPoolStats> value) {
		Gauge.builder(name, pool, (gauged) -> value.applyAsInt(gauged.getStats()))
			.description(description)
			.tag("pool", pool.getName())
			.strongReference(true)
			.register(this.meterRegistry);
	}

}
