package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A {@link RateLimiter} whose state lives in a {@link RateLimitStore}.
 */
final class StoreRateLimiter implements RateLimiter {

	private final String name;

	private final RateLimiterSettings settings;

	private final RateLimitStore store;

	private final RateLimitAcquirer acquirer;

	private final long maxCost;

	StoreRateLimiter(String name, RateLimiterSettings settings, RateLimitStore store, RateLimitAcquirer acquirer) {
		this.name = name;
		this.settings = settings;
		this.store = store;
		this.acquirer = acquirer;
		this.maxCost = settings.maxCost();
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public RateLimiterSettings getSettings() {
		return this.settings;
	}

	@Override
	public String getStoreType() {
		return this.store.getType();
	}

	@Override
	public RateLimitDecision tryAcquire(String key, int cost) {
		if (this.settings.maxConcurrent() > 0) {
			throw new IllegalStateException("Rate limiter '" + this.name
					+ "' has max-concurrent, whose permits must be returned: use acquire(...) and close the Permit");
		}
		checkCost(cost);
		RateLimitDecision decision = this.store.tryAcquire(Objects.requireNonNull(key, "key"), cost);
		this.acquirer.publish(this, decision);
		return decision;
	}

	@Override
	public Permit acquire(String key, int cost, Duration maxWait) {
		if (this.settings.maxConcurrent() == 0 && maxWait.isZero()) {
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
		checkCost(cost);
		return this.store.reserve(Objects.requireNonNull(key, "key"), cost, Durations.toNanos(maxWait));
	}

	@Override
	public CompletableFuture<Reservation> reserveAsync(String key, int cost, Duration maxWait) {
		try {
			checkCost(cost);
			return this.store.reserveAsync(Objects.requireNonNull(key, "key"), cost, Durations.toNanos(maxWait));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
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
		this.store.awaitPermit(Objects.requireNonNull(key, "key"), Durations.toNanos(maxWait));
	}

	@Override
	public CompletableFuture<Void> awaitPermitAsync(String key, Duration maxWait, ScheduledExecutorService scheduler) {
		try {
			return this.store.awaitPermitAsync(Objects.requireNonNull(key, "key"), Durations.toNanos(maxWait),
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
	public StoreStatus checkStoreStatus() {
		return this.store.checkStatus();
	}

	@Override
	public long getStoreErrors() {
		return this.store.errorCount();
	}

	private void checkCost(int cost) {
		if (cost > 0 && cost <= this.maxCost) {
			return; // the usual case, without walking the settings
		}
		try {
			this.settings.checkCost(cost);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Rate limiter '" + this.name + "': " + ex.getMessage(), ex);
		}
	}

	@Override
	public String toString() {
		return "RateLimiter[" + this.name + ", store=" + this.store.getType() + "]";
	}

}
