package dev.resilience.ratelimit;

import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;

/**
 * Keeps a limiter's keys in this JVM's memory.
 * <p>
 * Each key's state is immutable and replaced inside {@code ConcurrentHashMap.compute}, which
 * locks only that key: calls for different keys never contend, and one key's decisions are
 * atomic. The map is a Caffeine cache whose entries expire at the moment their state would be
 * back to full (tokens refilled, windows empty, no permits held): a forgotten key and a full one
 * behave alike, so nothing is lost, and keys chosen by an attacker cannot grow the heap without
 * bound. Time comes from the {@link Ticker}, which Caffeine shares, so tests are exact.
 */
public final class InMemoryRateLimitStore implements RateLimitStore {

	private final String limiterName;

	private final RateLimiterSettings settings;

	private final Ticker ticker;

	private final Cache<String, LimiterState> states;

	private final AtomicLong ids = new AtomicLong();

	// Waiting for a returned permit is rare; one lock per limiter is enough for it, and the
	// release path takes it only when somebody waits.
	private final ReentrantLock releaseLock = new ReentrantLock();

	private final Condition permitReturned = this.releaseLock.newCondition();

	private final AtomicLong returnedPermits = new AtomicLong();

	private final AtomicLong waiters = new AtomicLong();

	/**
	 * Creates the store of one limiter.
	 * @param limiterName the limiter's name
	 * @param settings the limiter's settings
	 * @param ticker the clock
	 */
	public InMemoryRateLimitStore(String limiterName, RateLimiterSettings settings, Ticker ticker) {
		this.limiterName = limiterName;
		this.settings = settings;
		this.ticker = ticker;
		this.states = Caffeine.newBuilder().ticker(ticker::read).expireAfter(new IdleExpiry(settings)).build();
	}

	@Override
	public String getType() {
		return RateLimiterSettings.MEMORY_STORE;
	}

	@Override
	public Reservation reserve(String key, long cost, long maxWaitNanos) {
		this.settings.checkCost(cost);
		long id = this.ids.incrementAndGet();
		long returnedBefore = this.returnedPermits.get();
		LimiterAlgorithm.Outcome[] outcome = new LimiterAlgorithm.Outcome[1];
		this.states.asMap().compute(key, (k, state) -> {
			outcome[0] = LimiterAlgorithm.decide(this.limiterName, key, this.settings, state, this.ticker.read(), cost,
					maxWaitNanos, id);
			return outcome[0].state();
		});
		return new MemoryReservation(key, outcome[0], returnedBefore);
	}

	@Override
	public RateLimitDecision inspect(String key) {
		return LimiterAlgorithm.inspect(this.limiterName, key, this.settings, this.states.getIfPresent(key),
				this.ticker.read());
	}

	@Override
	public void reset(String key) {
		this.states.invalidate(key);
	}

	@Override
	public OptionalLong keyCount() {
		return OptionalLong.of(size());
	}

	/**
	 * Returns how many keys the store holds now, after dropping those that are back to full.
	 * @return the number of keys held
	 */
	public long size() {
		this.states.cleanUp();
		// Caffeine's timer wheel evicts expired keys only in steps of 2^30 ns (about a second), so
		// the estimated size still counts them for a while; its iterators skip them.
		return this.states.asMap().keySet().stream().count();
	}

	private void returnPermit(String key, long id) {
		this.states.asMap().computeIfPresent(key, (k, state) -> LimiterAlgorithm.release(state, id));
		this.returnedPermits.incrementAndGet();
		if (this.waiters.get() > 0) {
			this.releaseLock.lock();
			try {
				this.permitReturned.signalAll();
			}
			finally {
				this.releaseLock.unlock();
			}
		}
	}

	private final class MemoryReservation implements Reservation {

		private final String key;

		private final RateLimitDecision decision;

		private final LimiterAlgorithm.@Nullable Ticket ticket;

		private final boolean shortOfPermitOnly;

		private final long returnedBefore;

		private final AtomicBoolean done = new AtomicBoolean();

		MemoryReservation(String key, LimiterAlgorithm.Outcome outcome, long returnedBefore) {
			this.key = key;
			this.decision = outcome.decision();
			this.ticket = outcome.ticket();
			this.shortOfPermitOnly = outcome.shortOfPermitOnly();
			this.returnedBefore = returnedBefore;
		}

		@Override
		public boolean isShortOfPermitOnly() {
			return this.shortOfPermitOnly;
		}

		@Override
		public RateLimitDecision getDecision() {
			return this.decision;
		}

		@Override
		public void cancel() {
			LimiterAlgorithm.Ticket taken = this.ticket;
			if (taken != null && this.done.compareAndSet(false, true)) {
				states.asMap()
					.computeIfPresent(this.key,
							(k, state) -> LimiterAlgorithm.giveBack(settings, state, taken, ticker.read()));
				if (settings.maxConcurrent() > 0) {
					returnPermit(this.key, taken.id());
				}
			}
		}

		@Override
		public void release() {
			LimiterAlgorithm.Ticket taken = this.ticket;
			if (taken != null && settings.maxConcurrent() > 0 && this.done.compareAndSet(false, true)) {
				returnPermit(this.key, taken.id());
			}
		}

		@Override
		public void awaitPermitReturned(long nanos) throws InterruptedException {
			waiters.incrementAndGet();
			releaseLock.lock();
			try {
				long left = nanos;
				while (returnedPermits.get() == this.returnedBefore && left > 0) {
					left = permitReturned.awaitNanos(left);
				}
			}
			finally {
				releaseLock.unlock();
				waiters.decrementAndGet();
			}
		}

	}

	/** Expires a key when its state is back to full. */
	private static final class IdleExpiry implements Expiry<String, LimiterState> {

		private final RateLimiterSettings settings;

		IdleExpiry(RateLimiterSettings settings) {
			this.settings = settings;
		}

		private long untilIdle(LimiterState state, long now) {
			long idle = state.idleAt(this.settings);
			return (idle <= now) ? 0 : Durations.saturatedAdd(idle, -now);
		}

		@Override
		public long expireAfterCreate(String key, LimiterState state, long currentTime) {
			return untilIdle(state, currentTime);
		}

		@Override
		public long expireAfterUpdate(String key, LimiterState state, long currentTime, long currentDuration) {
			return untilIdle(state, currentTime);
		}

		@Override
		public long expireAfterRead(String key, LimiterState state, long currentTime, long currentDuration) {
			return currentDuration;
		}

	}

}
