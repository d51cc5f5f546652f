package dev.resilience.ratelimit;

import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;

/**
 * Keeps a limiter's keys in this JVM's memory.
 * <p>
 * Each key has its own {@link KeyState}: a limiter with only a token bucket decides without a
 * lock (compare-and-set of the bucket), one with windows or permits holds the key's monitor while
 * it decides. Calls for different keys never contend. The empty key, the limiter's shared bucket,
 * is a field; the other keys live in a Caffeine cache that forgets a key once it has been idle
 * long enough to be back to full ({@link #idleHorizonNanos}), and keys beyond {@code max-keys}
 * by Caffeine's size eviction. A forgotten key starts full, so forgetting an idle key loses
 * nothing, and keys chosen by an attacker cannot grow the heap without bound.
 * <p>
 * Time is the {@link Ticker}'s, counted from the store's creation: only differences of readings
 * mean anything, so a ticker near {@link Long#MAX_VALUE} works as well as one near zero.
 */
public final class InMemoryRateLimitStore implements RateLimitStore {

	/**
	 * Caffeine records a read as an access only when the last recorded one is more than a second
	 * old (fewer writes to hot entries), so a key is kept that much longer than its horizon.
	 */
	private static final long ACCESS_TOLERANCE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final String limiterName;

	private final RateLimiterSettings settings;

	/** The empty key's state, made at its first use like any other key's. */
	private volatile @Nullable KeyState shared;

	/** The ticker counted from the store's creation. */
	private final Ticker clock;

	private final Cache<String, KeyState> states;

	/** How long permits were recently held: an average over the last returned ones. */
	private volatile long typicalHoldNanos;

	/**
	 * Creates the store of one limiter.
	 * @param limiterName the limiter's name
	 * @param settings the limiter's settings
	 * @param ticker the clock
	 */
	public InMemoryRateLimitStore(String limiterName, RateLimiterSettings settings, Ticker ticker) {
		this.limiterName = limiterName;
		this.settings = settings;
		long origin = ticker.read();
		this.clock = () -> ticker.read() - origin;
		this.states = Caffeine.newBuilder()
			.ticker(this.clock::read)
			.scheduler(Scheduler.systemScheduler())
			.maximumSize(settings.maxKeys())
			.expireAfterAccess(Durations.saturatedAdd(idleHorizonNanos(settings), ACCESS_TOLERANCE_NANOS),
					TimeUnit.NANOSECONDS)
			.build();
	}

	/**
	 * How long after its last use a key is surely back to full: its bucket refilled from empty,
	 * its windows emptied and its leases expired, counted from the latest slot a call may have
	 * reserved within the limiter's {@code max-wait}. A call that waits longer than the limiter's
	 * {@code max-wait} keeps its key alive only while its key is in use.
	 * @param settings the limiter's settings
	 * @return the time in nanoseconds
	 */
	static long idleHorizonNanos(RateLimiterSettings settings) {
		long horizon = 0;
		TokenBucketSettings bucket = settings.tokenBucket();
		if (bucket != null) {
			long periods = Durations.mulDivCeil(bucket.capacity(), 1, bucket.refillTokens());
			horizon = Durations.mulDivCeil(periods, bucket.refillPeriodNanos(), 1);
		}
		// A counter's previous fixed window weighs in until two periods after it began.
		int windowSpan = (settings.windowAlgorithm() == WindowAlgorithm.COUNTER) ? 2 : 1;
		for (WindowSettings window : settings.windows()) {
			horizon = Math.max(horizon, Durations.mulDivCeil(window.periodNanos(), windowSpan, 1));
		}
		if (settings.maxConcurrent() > 0) {
			horizon = Math.max(horizon, Durations.toNanos(settings.leaseTimeout()));
		}
		return Durations.saturatedAdd(Durations.saturatedAdd(horizon, Durations.toNanos(settings.maxWait())), 1);
	}

	@Override
	public String getType() {
		return RateLimiterSettings.MEMORY_STORE;
	}

	KeyState state(String key) {
		if (key.isEmpty()) {
			KeyState shared = this.shared;
			return (shared != null) ? shared : sharedState();
		}
		KeyState state = this.states.getIfPresent(key);
		if (state == null) {
			state = this.states.get(key, (k) -> new KeyState(this.settings, this.clock.read()));
		}
		return state;
	}

	private synchronized KeyState sharedState() {
		KeyState shared = this.shared;
		if (shared == null) {
			shared = new KeyState(this.settings, this.clock.read());
			this.shared = shared;
		}
		return shared;
	}

	@Override
	public RateLimitDecision tryAcquire(String key, long cost) {
		return decide(state(key), key, cost, 0, true, null);
	}

	@Override
	public Reservation reserve(String key, long cost, long maxWaitNanos) {
		KeyState state = state(key);
		Ticket ticket = new Ticket();
		RateLimitDecision decision = decide(state, key, cost, maxWaitNanos, true, ticket);
		return new MemoryReservation(state, ticket, decision);
	}

	/** Decides under the key's monitor when it has windows or permits, without a lock otherwise. */
	private RateLimitDecision decide(KeyState state, String key, long cost, long maxWaitNanos, boolean commit,
			@Nullable Ticket ticket) {
		if (state.slots == null) {
			return LimiterAlgorithm.decide(this.limiterName, key, this.settings, state, this.clock, cost, maxWaitNanos,
					0, commit, ticket);
		}
		synchronized (state) {
			return LimiterAlgorithm.decide(this.limiterName, key, this.settings, state, this.clock, cost, maxWaitNanos,
					this.typicalHoldNanos, commit, ticket);
		}
	}

	@Override
	public void awaitPermit(String key, long nanos) throws InterruptedException {
		KeyState state = state(key);
		KeyState.Slots slots = state.slots;
		Leases leases = (slots != null) ? slots.leases : null;
		if (slots == null || leases == null) {
			return;
		}
		synchronized (state) {
			// A permit may have come back since the rejection: then there is nothing to wait for.
			leases.prune(this.clock.read(), Durations.toNanos(this.settings.leaseTimeout()));
			if (leases.size() < this.settings.maxConcurrent()) {
				return;
			}
			// Wait at most until the oldest lease expires: then a permit is free for sure.
			long untilExpiry = Durations.saturatedAdd(leases.oldestStart(), Durations.toNanos(this.settings.leaseTimeout()))
					- this.clock.read();
			long deadline = System.nanoTime() + Math.min(nanos, untilExpiry);
			long admissions = slots.admissions;
			int inFlight = leases.size();
			slots.permitWaiters++;
			try {
				// Woken by a returned permit of this key: stop once fewer permits are held than when
				// we began, or somebody was admitted (and took the returned one first).
				long left = deadline - System.nanoTime();
				while (left > 0 && slots.admissions == admissions && leases.size() >= inFlight) {
					TimeUnit.NANOSECONDS.timedWait(state, left);
					left = deadline - System.nanoTime();
				}
			}
			finally {
				slots.permitWaiters--;
			}
		}
	}

	/**
	 * Completes when a permit of the key is returned, its oldest lease expires or the time is up
	 * (on {@code scheduler}), without holding a thread: the waiter is a future in the key's state,
	 * completed by whoever returns a permit, once it left the key's monitor. A waiter that times out
	 * or is cancelled removes itself, and cancels its timer.
	 */
	@Override
	public CompletableFuture<Void> awaitPermitAsync(String key, long nanos, ScheduledExecutorService scheduler) {
		KeyState state = state(key);
		KeyState.Slots slots = state.slots;
		Leases leases = (slots != null) ? slots.leases : null;
		if (slots == null || leases == null) {
			return CompletableFuture.completedFuture(null);
		}
		CompletableFuture<Void> ready = new CompletableFuture<>();
		long delay;
		synchronized (state) {
			// A permit may have come back since the rejection: then there is nothing to wait for.
			leases.prune(this.clock.read(), Durations.toNanos(this.settings.leaseTimeout()));
			if (leases.size() < this.settings.maxConcurrent()) {
				return CompletableFuture.completedFuture(null);
			}
			// Wait at most until the oldest lease expires: then a permit is free for sure.
			long untilExpiry = Durations.saturatedAdd(leases.oldestStart(), Durations.toNanos(this.settings.leaseTimeout()))
					- this.clock.read();
			delay = Math.max(0, Math.min(nanos, untilExpiry));
			slots.addPermitFuture(ready);
		}
		ScheduledFuture<?> timer;
		try {
			Runnable timeUp = () -> ready.complete(null);
			timer = scheduler.schedule(timeUp, delay, TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException ex) {
			synchronized (state) {
				slots.removePermitFuture(ready);
			}
			throw ex;
		}
		ready.whenComplete((done, ex) -> {
			timer.cancel(false);
			synchronized (state) {
				slots.removePermitFuture(ready);
			}
		});
		return ready;
	}

	@Override
	public RateLimitDecision inspect(String key) {
		KeyState state = key.isEmpty() ? this.shared : this.states.getIfPresent(key);
		if (state == null) {
			state = new KeyState(this.settings, this.clock.read());
		}
		// permitted when a call of cost 1 would be admitted now
		return decide(state, key, 1, 0, false, null);
	}

	@Override
	public void reset(String key) {
		if (key.isEmpty()) {
			this.shared = null;
		}
		else {
			this.states.invalidate(key);
		}
	}

	/**
	 * Returns how many keys the store holds now, the shared bucket aside, after forgetting those
	 * that are due.
	 * @return the number of keys held
	 */
	@Override
	public OptionalLong keyCount() {
		this.states.cleanUp();
		return OptionalLong.of(this.states.estimatedSize());
	}

	/**
	 * After a permit taken at {@code start} came back: wakes those waiting for one of its key and,
	 * when the call ran, learns its hold time. The caller holds the key's monitor.
	 * @return the waiters without a thread, to complete once the monitor is left, or {@code null}
	 */
	private @Nullable Set<CompletableFuture<Void>> permitReturned(KeyState state, long start, boolean used) {
		KeyState.Slots slots = state.slots;
		if (start == Long.MIN_VALUE || slots == null) {
			return null;
		}
		if (slots.permitWaiters > 0) {
			state.notifyAll();
		}
		Set<CompletableFuture<Void>> woken = slots.takePermitFutures();
		// Only a call that ran tells how long calls hold their permit, not one given back.
		if (used) {
			long held = Math.max(0, this.clock.read() - start);
			long typical = this.typicalHoldNanos;
			// An exponentially weighted average over about the last eight permits; a lost race
			// only drops one sample.
			this.typicalHoldNanos = (typical == 0) ? Math.max(1, held) : Math.max(1, typical + (held - typical) / 8);
		}
		return woken;
	}

	/** Completes the waiters of a returned permit, outside the key's monitor: they may go on at once. */
	private static void wake(@Nullable Set<CompletableFuture<Void>> woken) {
		if (woken != null) {
			for (CompletableFuture<Void> waiter : woken) {
				waiter.complete(null);
			}
		}
	}

	private final class MemoryReservation implements Reservation {

		private final KeyState state;

		private final Ticket ticket;

		private final RateLimitDecision decision;

		/** Whether the call was given back or its permit returned; guarded by the state's monitor. */
		private boolean done;

		MemoryReservation(KeyState state, Ticket ticket, RateLimitDecision decision) {
			this.state = state;
			this.ticket = ticket;
			this.decision = decision;
		}

		@Override
		public RateLimitDecision getDecision() {
			return this.decision;
		}

		@Override
		public void cancel() {
			Set<CompletableFuture<Void>> woken = null;
			synchronized (this.state) {
				if (this.decision.isPermitted() && !this.done) {
					this.done = true;
					woken = permitReturned(this.state, LimiterAlgorithm.giveBack(settings, this.state, this.ticket, clock),
							false);
				}
			}
			wake(woken);
		}

		@Override
		public void release() {
			if (settings.maxConcurrent() == 0) {
				return;
			}
			Set<CompletableFuture<Void>> woken = null;
			synchronized (this.state) {
				if (this.decision.isPermitted() && !this.done) {
					this.done = true;
					woken = permitReturned(this.state, LimiterAlgorithm.release(this.state.slots, this.ticket.sequence),
							true);
				}
			}
			wake(woken);
		}

		@Override
		public String toString() {
			return "Reservation[" + this.decision + "]";
		}

	}

	@Override
	public String toString() {
		return "InMemoryRateLimitStore[" + this.limiterName + ", keys=" + this.states.estimatedSize() + "]";
	}

}
