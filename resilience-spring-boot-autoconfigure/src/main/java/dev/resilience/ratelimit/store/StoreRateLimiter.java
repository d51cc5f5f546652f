package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import dev.resilience.internal.Durations;
import dev.resilience.ratelimit.PauseOnThrottleSettings;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.StoreStatus;
import dev.resilience.ratelimit.Throttle;

/**
 * A {@link RateLimiter} whose state lives in a {@link RateLimitStore}.
 */
final class StoreRateLimiter implements RateLimiter {

	/** Whether Netflix's concurrency-limits, an optional dependency, is there. */
	private static final boolean ADAPTIVE_ALGORITHMS_PRESENT = isPresent("com.netflix.concurrency.limits.Limit");

	private final String name;

	/** The settings and what follows from them, replaced whole at run time; read once per call. */
	private volatile Current current;

	private final RateLimitStore store;

	private final RateLimitAcquirer acquirer;

	StoreRateLimiter(String name, RateLimiterSettings settings, RateLimitStore store, RateLimitAcquirer acquirer) {
		checkCanPause(name, settings, store);
		checkCanAdapt(name, settings, store);
		this.name = name;
		this.current = new Current(settings);
		this.store = store;
		this.acquirer = acquirer;
	}

	/**
	 * Replaces the settings by others of the same shape, store first, so that a call that reads
	 * the new settings here finds them in the store too.
	 * @throws IllegalArgumentException naming the property when the shape differs
	 * @throws IllegalStateException when the store cannot change its settings
	 */
	synchronized void updateSettings(RateLimiterSettings settings) {
		checkSameShape(this.current.settings(), settings);
		checkCanPause(this.name, settings, this.store);
		checkCanAdapt(this.name, settings, this.store);
		if (!this.store.updateSettings(settings)) {
			throw new IllegalStateException("the " + this.store.getType() + " store of rate limiter '" + this.name
					+ "' cannot change its settings at run time");
		}
		this.current = new Current(settings);
	}

	/** A limiter that pauses needs a store that keeps pauses: enabled, it would silently do nothing. */
	private static void checkCanPause(String name, RateLimiterSettings settings, RateLimitStore store) {
		if (settings.pauseOnThrottle().enabled() && !store.canPause()) {
			throw new IllegalArgumentException("pause-on-throttle.enabled is true for rate limiter '" + name + "', but its "
					+ store.getType() + " store cannot pause keys; use a store that can (memory, redis) or disable it");
		}
	}

	/**
	 * An adaptive limit is kept per key in this JVM and needs Netflix's algorithms: without either,
	 * it would silently be a fixed {@code max-limit}.
	 */
	private static void checkCanAdapt(String name, RateLimiterSettings settings, RateLimitStore store) {
		if (settings.adaptiveConcurrency() == null) {
			return;
		}
		if (!store.canAdaptConcurrency()) {
			throw new IllegalArgumentException("max-concurrent is adaptive for rate limiter '" + name + "', but its "
					+ store.getType() + " store cannot keep an adaptive limit: the limit is per instance, so use the "
					+ "memory store for this limiter, or a fixed max-concurrent");
		}
		if (!ADAPTIVE_ALGORITHMS_PRESENT) {
			throw new IllegalArgumentException("max-concurrent is adaptive for rate limiter '" + name + "', which needs "
					+ "com.netflix.concurrency-limits:concurrency-limits-core on the class path: add that dependency");
		}
	}

	/**
	 * Checks what a key's state is made of stays: the store, whether there is a token bucket, the
	 * windows' number and algorithm, and whether there are concurrency permits.
	 */
	private static void checkSameShape(RateLimiterSettings now, RateLimiterSettings next) {
		if (!now.store().equals(next.store())) {
			throw unchanged("store", now.store(), next.store());
		}
		if ((now.tokenBucket() == null) != (next.tokenBucket() == null)) {
			throw unchanged("token-bucket", (now.tokenBucket() == null) ? "none" : "set",
					(next.tokenBucket() == null) ? "none" : "set");
		}
		if (now.windows().size() != next.windows().size()) {
			throw unchanged("windows", now.windows().size() + " windows", next.windows().size() + " windows");
		}
		if (!now.windows().isEmpty() && now.windowAlgorithm() != next.windowAlgorithm()) {
			throw unchanged("window-algorithm", now.windowAlgorithm(), next.windowAlgorithm());
		}
		if ((now.maxConcurrent() == 0) != (next.maxConcurrent() == 0)) {
			throw unchanged("max-concurrent", maxConcurrent(now), maxConcurrent(next));
		}
	}

	/** max-concurrent as written: a number, or {@code adaptive} (whose settings carry the max-limit). */
	private static Object maxConcurrent(RateLimiterSettings settings) {
		return (settings.adaptiveConcurrency() != null) ? "adaptive" : settings.maxConcurrent();
	}

	private static boolean isPresent(String className) {
		try {
			Class.forName(className, false, StoreRateLimiter.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	private static IllegalArgumentException unchanged(String property, Object was, Object wanted) {
		return new IllegalArgumentException(property + " cannot change from " + was + " to " + wanted
				+ " at run time, as each key's state is made of it (values within it can change); restart to change it");
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public RateLimiterSettings getSettings() {
		return this.current.settings();
	}

	@Override
	public String getStoreType() {
		return this.store.getType();
	}

	@Override
	public RateLimitDecision tryAcquire(String key, int cost) {
		Current current = this.current;
		if (current.settings().maxConcurrent() > 0) {
			throw new IllegalStateException("Rate limiter '" + this.name
					+ "' has max-concurrent, whose permits must be returned: use acquire(...) and close the Permit");
		}
		checkCost(current, cost);
		RateLimitDecision decision = this.store.tryAcquire(Objects.requireNonNull(key, "key"), cost);
		this.acquirer.publish(this, decision);
		return decision;
	}

	@Override
	public Permit acquire(String key, int cost, Duration maxWait) {
		if (this.current.settings().maxConcurrent() == 0 && Objects.requireNonNull(maxWait, "maxWait").isZero()) {
			// Admitted now or never, with no permit to return: nothing to keep for later.
			RateLimitDecision decision = tryAcquire(key, cost);
			if (!decision.isPermitted()) {
				throw this.acquirer.rejection(decision);
			}
			return new Permit(List.of(Reservation.settled(decision)), Duration.ZERO);
		}
		return this.acquirer.acquire(List.of(new RateLimitRequest(this, key, cost, maxWait)));
	}

	@Override
	public CompletableFuture<Permit> acquireAsync(String key, int cost, Duration maxWait,
			ScheduledExecutorService scheduler) {
		RateLimitRequest request;
		try {
			request = new RateLimitRequest(this, key, cost, maxWait);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return this.acquirer.acquireAsync(List.of(request), scheduler);
	}

	@Override
	public Reservation reserve(String key, int cost, Duration maxWait) {
		// Checked as an acquisition's request is: a negative wait would reject even a call admitted at once.
		RateLimitRequest request = new RateLimitRequest(this, key, cost, maxWait);
		return this.store.reserve(request.key(), request.cost(), Durations.saturatedNanos(request.maxWait()));
	}

	@Override
	public CompletableFuture<Reservation> reserveAsync(String key, int cost, Duration maxWait) {
		try {
			RateLimitRequest request = new RateLimitRequest(this, key, cost, maxWait);
			return this.store.reserveAsync(request.key(), request.cost(), Durations.saturatedNanos(request.maxWait()));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public Duration pause(String key, Throttle throttle) {
		Duration pause = pauseFor(key, throttle);
		this.store.pause(key, Durations.saturatedNanos(pause));
		this.acquirer.publishPause(this, key, pause, throttle.cause());
		return pause;
	}

	@Override
	public CompletableFuture<Duration> pauseAsync(String key, Throttle throttle) {
		Duration pause;
		CompletableFuture<Void> stored;
		try {
			pause = pauseFor(key, throttle);
			stored = this.store.pauseAsync(key, Durations.saturatedNanos(pause));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return stored.thenApply((done) -> {
			this.acquirer.publishPause(this, key, pause, throttle.cause());
			return pause;
		});
	}

	/** The pause a throttle asks of this limiter, which must pause. */
	private Duration pauseFor(String key, Throttle throttle) {
		Objects.requireNonNull(key, "key");
		Objects.requireNonNull(throttle, "throttle");
		PauseOnThrottleSettings settings = this.current.settings().pauseOnThrottle();
		if (!settings.enabled()) {
			throw new IllegalStateException("Rate limiter '" + this.name + "' does not pause: set resilience.rate-limiters."
					+ this.name + ".pause-on-throttle.enabled=true to pause its keys");
		}
		return settings.pauseFor(throttle);
	}

	@Override
	public RateLimitDecision inspect(String key) {
		return this.store.inspect(Objects.requireNonNull(key, "key"));
	}

	@Override
	public void reset(String key) {
		this.store.reset(Objects.requireNonNull(key, "key"));
	}

	@Override
	public void awaitPermit(String key, Duration maxWait) throws InterruptedException {
		this.store.awaitPermit(Objects.requireNonNull(key, "key"),
				Durations.saturatedNanos(Objects.requireNonNull(maxWait, "maxWait")));
	}

	@Override
	public CompletableFuture<Void> awaitPermitAsync(String key, Duration maxWait, ScheduledExecutorService scheduler) {
		try {
			return this.store.awaitPermitAsync(Objects.requireNonNull(key, "key"),
					Durations.saturatedNanos(Objects.requireNonNull(maxWait, "maxWait")),
					Objects.requireNonNull(scheduler, "scheduler"));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public OptionalLong getKeyCount() {
		return this.store.keyCount();
	}

	@Override
	public OptionalInt getConcurrencyLimit() {
		RateLimiterSettings settings = this.current.settings();
		if (settings.maxConcurrent() == 0) {
			return OptionalInt.empty();
		}
		return (settings.adaptiveConcurrency() != null) ? this.store.concurrencyLimit()
				: OptionalInt.of(settings.maxConcurrent());
	}

	@Override
	public StoreStatus checkStoreStatus() {
		return this.store.checkStatus();
	}

	@Override
	public long getStoreErrors() {
		return this.store.errorCount();
	}

	private void checkCost(Current current, int cost) {
		if (cost > 0 && cost <= current.maxCost()) {
			return; // the usual case, without walking the settings
		}
		try {
			current.settings().checkCost(cost);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Rate limiter '" + this.name + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * The settings, and the largest cost they admit.
	 *
	 * @param settings the settings
	 * @param maxCost the largest cost a call may have
	 */
	private record Current(RateLimiterSettings settings, long maxCost) {

		Current(RateLimiterSettings settings) {
			this(settings, settings.maxCost());
		}

	}

	@Override
	public String toString() {
		return "RateLimiter[" + this.name + ", store=" + this.store.getType() + "]";
	}

}
