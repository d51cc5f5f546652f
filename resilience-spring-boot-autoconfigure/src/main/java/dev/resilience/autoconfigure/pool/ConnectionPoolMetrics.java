package dev.resilience.autoconfigure.pool;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.resilience.pool.ConnectionPoolListener;

/**
 * Records every checkout and operation of the pools in Micrometer:
 * {@code resilience.pool.checkout} by outcome ({@code acquired}, {@code timeout}) and
 * {@code resilience.pool.operation} by outcome ({@code success}, {@code error}, {@code timeout}),
 * each tagged {@code pool}.
 */
public class ConnectionPoolMetrics implements ConnectionPoolListener {

	/** Timer of the waits for a connection. */
	public static final String CHECKOUT = "resilience.pool.checkout";

	/** Timer of the work done with a connection. */
	public static final String OPERATION = "resilience.pool.operation";

	private final MeterRegistry registry;

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	/**
	 * Creates the listener.
	 * @param registry where to record
	 */
	public ConnectionPoolMetrics(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onCheckout(String pool, CheckoutOutcome outcome, Duration waited) {
		timer(CHECKOUT, "Time calls waited for a pooled connection", pool, outcome.name()).record(waited);
	}

	@Override
	public void onOperation(String pool, OperationOutcome outcome, Duration duration) {
		timer(OPERATION, "Time work with a pooled connection took until its caller got the outcome", pool,
				outcome.name())
			.record(duration);
	}

	private Timer timer(String name, String description, String pool, String outcome) {
		String tag = outcome.toLowerCase(Locale.ROOT);
		return this.timers.computeIfAbsent(name + ' ' + pool + ' ' + tag, (key) -> Timer.builder(name)
			.description(description)
			.tag("pool", pool)
			.tag("outcome", tag)
			.register(this.registry));
	}

}
