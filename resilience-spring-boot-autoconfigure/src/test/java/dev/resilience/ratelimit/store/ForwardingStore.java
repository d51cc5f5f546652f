package dev.resilience.ratelimit.store;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.Reservation;

/**
 * A store that passes every call on to another, for tests that watch or change one of them;
 * {@code reserveAsync} keeps the default, so it goes through {@link #reserve}.
 */
class ForwardingStore implements RateLimitStore {

	private final String type;

	private final RateLimitStore delegate;

	ForwardingStore(String type, RateLimitStore delegate) {
		this.type = type;
		this.delegate = delegate;
	}

	@Override
	public String getType() {
		return this.type;
	}

	@Override
	public Reservation reserve(String key, long cost, long maxWaitNanos) {
		return this.delegate.reserve(key, cost, maxWaitNanos);
	}

	@Override
	public RateLimitDecision tryAcquire(String key, long cost) {
		return this.delegate.tryAcquire(key, cost);
	}

	@Override
	public void awaitPermit(String key, long nanos) throws InterruptedException {
		this.delegate.awaitPermit(key, nanos);
	}

	@Override
	public CompletableFuture<Void> awaitPermitAsync(String key, long nanos, ScheduledExecutorService scheduler) {
		return this.delegate.awaitPermitAsync(key, nanos, scheduler);
	}

	@Override
	public RateLimitDecision inspect(String key) {
		return this.delegate.inspect(key);
	}

	@Override
	public void reset(String key) {
		this.delegate.reset(key);
	}

	@Override
	public OptionalLong keyCount() {
		return this.delegate.keyCount();
	}

}
