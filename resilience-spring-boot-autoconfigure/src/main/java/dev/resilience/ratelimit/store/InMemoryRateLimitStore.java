package dev.resilience.ratelimit.store;

import java.lang.ref.WeakReference;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;
import dev.resilience.internal.Durations;
import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.Reservation;
import dev.resilience.ratelimit.TokenBucketSettings;
import dev.resilience.ratelimit.WindowAlgorithm;
import dev.resilience.ratelimit.WindowSettings;

/**
 * Keeps a limiter's keys in this JVM's memory.
 * <p>
 * Each key has its own {@link KeyState}: a limiter with only a token bucket decides without a
 * lock (compare-and-set of the bucket), one with windows or permits holds the key's monitor while
 * it decides. Calls for different keys never contend. The empty key, the limiter's shared bucket,
 * is a field; the other keys live in a map that forgets a key once it has been idle long enough
 * to be back to full ({@link #idleHorizonNanos}, plus a second), and keeps at most
 * {@code max-keys}: a new key beyond them makes the store forget the key used least recently of
 * a few it samples, as Redis's approximate LRU does. A forgotten key starts full, so forgetting an
 * idle key loses nothing, and keys chosen by an attacker cannot grow the heap without bound.
 * <p>
 * Time is the {@link Ticker}'s, counted from the store's creation: only differences of readings
 * mean anything, so a ticker near {@link Long#MAX_VALUE} works as well as one near zero.
 */
final class InMemoryRateLimitStore implements RateLimitStore {

	/**
	 * How long past its horizon a key is kept: sweeps for idle keys then come at most about once a
	 * second however short the horizon.
	 */
	private static final long IDLE_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** The longest time between two sweeps for idle keys while the store holds any. */
	private static final long MAX_SWEEP_DELAY_NANOS = TimeUnit.MINUTES.toNanos(1);

	/** How many keys are sampled to find the one to forget when {@code max-keys} is reached. */
	private static final int EVICTION_SAMPLE = 8;

	private final String limiterName;

	/**
	 * The settings, replaced whole at run time ({@link #updateSettings}); every operation reads
	 * them once, so one decision sees one version.
	 */
	private volatile RateLimiterSettings settings;

	/** The empty key's state, made at its first use like any other key's. */
	private volatile @Nullable KeyState shared;

	/** The ticker counted from the store's creation. */
	private final Ticker clock;

	/*
	 * Speed: a cache with expiry after access (Caffeine) records every read, which cost about
	 * twice the decision itself. A plain ConcurrentHashMap is read without writing; each key keeps
	 * the time of its last use (KeyState.lastUsed), and the store forgets idle keys by
	 * sweeping the map: on a timer while it holds keys, and when its keys are counted. The key
	 * count is reserved in "size" before a key is put, so the map never holds more than max-keys
	 * however many threads add keys at once; the keys to forget then are found by sampling
	 * (the "hand" walks the map, under "maintenance"). A forgotten state is retired (see
	 * KeyState), so a decision that raced its removal looks the key up again instead of deciding
	 * on a state nobody will see.
	 */

	private final ConcurrentHashMap<String, KeyState> states = new ConcurrentHashMap<>();

	/** The keys held or about to be put: never fewer than the map holds, never more than {@link #maxKeys}. */
	private final AtomicInteger size = new AtomicInteger();

	/** Follows {@link #settings}. */
	private volatile int maxKeys;

	/** How long a key is kept after its last recorded use; follows {@link #settings}. */
	private volatile long expireNanos;

	/**
	 * Guards {@link #hand}: one thread evicts at a time, and another that needs room meanwhile
	 * steps aside without waiting for the lock (see {@link #makeRoom}).
	 */
	private final ReentrantLock maintenance = new ReentrantLock();

	/** Where the search for a key to forget goes on; guarded by {@link #maintenance}. */
	private @Nullable Iterator<Map.Entry<String, KeyState>> hand;

	/** Whether a sweep for idle keys is scheduled. */
	private final AtomicBoolean sweepScheduled = new AtomicBoolean();

	/** How long permits were recently held: an average over the last returned ones. */
	private volatile long typicalHoldNanos;

	/*
	 * Pauses (SPEC §10) are rare and short-lived, so they live apart from the keys' states (which
	 * a sweep may forget while paused, being full): a decision reads one volatile field while no
	 * pause is held, looks its key up while one is, and reads the clock only for a key found paused
	 * (a clock read costs about half a decision). A pause that ended goes when its key is next
	 * decided, or when pausing needs room; all go once a decision finds the last one over. Writes
	 * hold the map's monitor, so that clearing them never loses a new one.
	 */

	/** The pauses, by key; guarded by its own monitor for writes. */
	private final Map<String, KeyPause> pauses = new ConcurrentHashMap<>();

	/** When the last pause in {@link #pauses} ends, {@link Long#MIN_VALUE} while there is none. */
	private volatile long pausesEnd = Long.MIN_VALUE;

	/**
	 * Creates the store of one limiter.
	 * @param limiterName the limiter's name
	 * @param settings the limiter's settings
	 * @param ticker the clock
	 */
	InMemoryRateLimitStore(String limiterName, RateLimiterSettings settings, Ticker ticker) {
		this.limiterName = limiterName;
		this.settings = settings;
		long origin = ticker.read();
		this.clock = () -> ticker.read() - origin;
		this.maxKeys = (int) Math.min(Integer.MAX_VALUE, settings.maxKeys());
		this.expireNanos = Durations.saturatedAdd(idleHorizonNanos(settings), IDLE_MARGIN_NANOS);
	}

	/**
	 * Takes new settings of the same shape: every key keeps its state, and a bucket holds no more
	 * than a new capacity from its next decision. Idle keys are forgotten by the new settings'
	 * horizon, which tells when a key is full under them; a lower {@code max-keys} is reached as
	 * new keys come.
	 */
	@Override
	public boolean updateSettings(RateLimiterSettings settings) {
		this.expireNanos = Durations.saturatedAdd(idleHorizonNanos(settings), IDLE_MARGIN_NANOS);
		this.maxKeys = (int) Math.min(Integer.MAX_VALUE, settings.maxKeys());
		this.settings = settings;
		return true;
	}

	/**
	 * How long after its last use a key is surely back to full: its bucket refilled from empty,
	 * its windows emptied and its leases expired. A reserved slot counts as a use: a key with
	 * windows or permits records its use at the slot it admitted a call to, and a bucket-only key
	 * is forgotten only once its bucket is full, which a bucket reserved ahead is not. So no wait,
	 * however long the limiter's {@code max-wait} or a call's own, is part of the horizon.
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
			horizon = Math.max(horizon, Durations.saturatedNanos(settings.leaseTimeout()));
		}
		return Durations.saturatedAdd(horizon, 1);
	}

	@Override
	public String getType() {
		return RateLimiterSettings.MEMORY_STORE;
	}

	/** The key's state, made at its first use. */
	KeyState state(String key) {
		if (key.isEmpty()) {
			KeyState shared = this.shared;
			return (shared != null) ? shared : sharedState();
		}
		KeyState state = this.states.get(key);
		return (state != null) ? state : add(key);
	}

	private synchronized KeyState sharedState() {
		KeyState shared = this.shared;
		if (shared == null) {
			shared = new KeyState(this.settings, this.clock.read());
			this.shared = shared;
		}
		return shared;
	}

	/** Puts a new key, after making room for it when the store holds {@code max-keys}. */
	private KeyState add(String key) {
		int busy = 0;
		while (true) {
			KeyState existing = this.states.get(key);
			if (existing != null) {
				return existing;
			}
			int held = this.size.get();
			if (held >= this.maxKeys) {
				if (!makeRoom()) {
					// another thread is evicting, or putting every key counted: step aside, as a
					// decision that lost its key's compare-and-set does, without blocking
					LostRaceBackOff.pause(++busy);
				}
				continue;
			}
			if (!this.size.compareAndSet(held, held + 1)) {
				continue;
			}
			KeyState fresh = new KeyState(this.settings, this.clock.read());
			existing = this.states.putIfAbsent(key, fresh);
			if (existing == null) {
				scheduleSweep();
				return fresh;
			}
			this.size.decrementAndGet();
			return existing;
		}
	}

	/**
	 * Looks a key up again after its state was retired, removing that state if still there. Never
	 * the shared key's: only the states of {@link #states} are retired, by a sweep or an eviction.
	 */
	private KeyState replace(String key, KeyState retired) {
		if (this.states.remove(key, retired)) {
			this.size.decrementAndGet();
		}
		return state(key);
	}

	@Override
	public boolean canPause() {
		return true;
	}

	@Override
	public boolean canAdaptConcurrency() {
		return true;
	}

	@Override
	public void pause(String key, long nanos) {
		long now = this.clock.read();
		synchronized (this.pauses) {
			if (this.pauses.size() >= this.maxKeys) {
				this.pauses.values().removeIf((pause) -> !pause.inForceAt(now));
			}
			KeyPause pause = KeyPause.extend(this.pauses.get(key), now, nanos);
			this.pauses.put(key, pause);
			this.pausesEnd = Math.max(this.pausesEnd, pause.until());
		}
	}

	/**
	 * The decision for a call of a paused key, or {@code null} when the key is not paused or the
	 * limiter does not pause.
	 * @param spread whether the caller is told a resumption within the spread, or (inspecting)
	 * the end of the pause
	 */
	private @Nullable RateLimitDecision paused(String key, boolean spread) {
		if (this.pausesEnd == Long.MIN_VALUE) {
			return null;
		}
		RateLimiterSettings settings = this.settings;
		KeyPause pause = settings.pauseOnThrottle().enabled() ? this.pauses.get(key) : null;
		if (pause == null) {
			return null; // the clock is read only for a key that was paused: other keys pay a lookup
		}
		long now = this.clock.read();
		if (pause.inForceAt(now)) {
			return paused(pause, key, settings, now, spread ? ThreadLocalRandom.current().nextDouble() : 0);
		}
		this.pauses.remove(key, pause);
		if (now >= this.pausesEnd) {
			synchronized (this.pauses) {
				if (now >= this.pausesEnd) {
					this.pauses.clear();
					this.pausesEnd = Long.MIN_VALUE;
				}
			}
		}
		return null;
	}

	/**
	 * The decision for a call of a key paused at {@code now}, showing the key's calls in flight and
	 * its limit on them in force as its next decision would find them (an adaptive limit is the
	 * key's own, not {@code max-limit}); a key not held shows as a new one, as {@link #inspect} does.
	 */
	private RateLimitDecision paused(KeyPause pause, String key, RateLimiterSettings settings, long now, double spread) {
		KeyState state = key.isEmpty() ? this.shared : this.states.get(key);
		KeyState.Slots slots = (state != null) ? state.slots : null;
		int inFlight = 0;
		int concurrencyLimit = -1;
		if (state != null && slots != null && slots.leases != null) {
			synchronized (state) {
				if (!state.retired) {
					inFlight = slots.inFlight();
					concurrencyLimit = slots.concurrencyLimit(settings, now);
				}
			}
		}
		if (concurrencyLimit < 0) {
			KeyState.Slots fresh = new KeyState(settings, now).slots;
			concurrencyLimit = (fresh != null && fresh.leases != null) ? fresh.concurrencyLimit(settings, now)
					: settings.maxConcurrent();
		}
		return pause.decision(this.limiterName, key, settings, now, spread, inFlight, concurrencyLimit);
	}

	@Override
	public RateLimitDecision tryAcquire(String key, long cost) {
		RateLimitDecision paused = paused(key, true);
		if (paused != null) {
			return paused;
		}
		KeyState state = state(key);
		KeyState.Slots slots = state.slots;
		if (slots == null) {
			return decideBucket(state, key, cost, 0, null);
		}
		if (slots.soleWindow != null) {
			return decideSoleWindow(state, key, cost);
		}
		while (true) {
			RateLimitDecision decision = decideSlots(state, key, cost, 0, true, null);
			if (decision != null) {
				return decision;
			}
			state = replace(key, state);
		}
	}

	@Override
	public Reservation reserve(String key, long cost, long maxWaitNanos) {
		RateLimitDecision paused = paused(key, true);
		if (paused != null) {
			return Reservation.settled(paused);
		}
		KeyState state = state(key);
		Ticket[] ticket = new Ticket[1];
		if (state.slots == null) {
			RateLimitDecision decision = decideBucket(state, key, cost, maxWaitNanos, ticket);
			// the state the decision was made on: the key's may have been replaced meanwhile
			return new MemoryReservation(ticket[0] != null ? ticket[0].state() : state, ticket[0], decision);
		}
		while (true) {
			RateLimitDecision decision = decideSlots(state, key, cost, maxWaitNanos, true, ticket);
			if (decision != null) {
				return new MemoryReservation(state, ticket[0], decision);
			}
			state = replace(key, state);
		}
	}

	/**
	 * Decides a call of a bucket-only limiter without a lock: the bucket is swapped by
	 * compare-and-set, and the decision is made again when another thread swapped it first, or on
	 * the key found again when the state was retired meanwhile.
	 * @param ticket where to leave what an admitted call took, or {@code null}
	 * @return the decision
	 */
	private RateLimitDecision decideBucket(KeyState state, String key, long cost, long maxWaitNanos,
			Ticket @Nullable [] ticket) {
		RateLimiterSettings settings = this.settings;
		int lost = 0;
		while (true) {
			KeyState.Bucket bucket = state.bucket();
			if (bucket == KeyState.RETIRED) {
				state = replace(key, state);
				continue;
			}
			// Read after the bucket, so that it is not behind the time the bucket was written at.
			long now = this.clock.read();
			LimiterAlgorithm.Verdict verdict = LimiterAlgorithm.decide(settings, bucket, null, now, cost,
					maxWaitNanos, 0);
			boolean permitted = verdict.permitted();
			KeyState.Bucket taken = verdict.taken();
			if (permitted && bucket != null && taken != null && !state.replaceBucket(bucket, taken)) {
				// Another thread decided first: step aside before deciding again
				LostRaceBackOff.pause(++lost);
				continue;
			}
			if (permitted) {
				state.used(now);
				if (ticket != null) {
					ticket[0] = new Ticket(state, 0, cost, verdict.at(), bucket, taken);
				}
			}
			return RateLimitDecision.of(this.limiterName, key, permitted, permitted ? verdict.at() - now : 0,
					verdict.retryAfterNanos(), false, 0, settings, permitted ? verdict.at() : now,
					permitted ? taken : verdict.refilled(), null);
		}
	}

	/**
	 * Decides a call of a limiter with windows or permits under the key's monitor. With
	 * {@code commit} false, only tells what would be decided.
	 * @param ticket where to leave what an admitted call took, or {@code null}
	 * @return the decision, or {@code null} when the state was retired
	 */
	private @Nullable RateLimitDecision decideSlots(KeyState state, String key, long cost, long maxWaitNanos,
			boolean commit, Ticket @Nullable [] ticket) {
		KeyState.Slots slots = Objects.requireNonNull(state.slots);
		RateLimiterSettings settings = this.settings;
		synchronized (state) {
			if (state.retired) {
				return null;
			}
			KeyState.Bucket bucket = state.bucket();
			long now = this.clock.read();
			LimiterAlgorithm.prune(settings, slots, now);
			LimiterAlgorithm.Verdict verdict = LimiterAlgorithm.decide(settings, bucket, slots, now, cost,
					maxWaitNanos, this.typicalHoldNanos);
			if (!verdict.permitted() || !commit) {
				return describe(settings, key, verdict.refilled(), slots, now, verdict.permitted(), 0, verdict.retryAfterNanos(),
						verdict.concurrencyLimited());
			}
			KeyState.Bucket taken = verdict.taken();
			if (bucket != null && taken != null) {
				state.replaceBucket(bucket, taken); // always succeeds: its writers hold the monitor
			}
			long sequence = LimiterAlgorithm.admit(settings, slots, verdict.at(), cost);
			// at the slot, so that the key outlives what it reserved, whatever the wait allowed
			state.used(verdict.at());
			if (ticket != null) {
				ticket[0] = new Ticket(state, sequence, cost, verdict.at(), bucket, taken);
			}
			return describe(settings, key, taken, slots, verdict.at(), true, verdict.at() - now, 0, false);
		}
	}

	/**
	 * Decides a call without a wait of a key whose only constraint is one window, as
	 * {@link #decideSlots} does (under the key's monitor, the same window operations in the same
	 * order), but without what that general path computes for buckets, several windows and
	 * permits.
	 * <p>
	 * Speed: this is the exact window's hot path, so it does only what one window
	 * needs. The window's work is in {@link #takeFromSoleWindow}, which returns a number, and the
	 * decision is built at one place, outside the monitor. On JDK 17 the decision (72 B) and its
	 * quota array (32 B) are still allocated: the JIT compiles the limiter's {@code tryAcquire}
	 * with all of this inlined into one method too big to inline into its caller, so the decision
	 * escapes as a return value and cannot be scalar-replaced (seen with {@code -prof gc} and
	 * {@code -XX:+PrintInlining}).
	 */
	private RateLimitDecision decideSoleWindow(KeyState state, String key, long cost) {
		while (true) {
			RateLimiterSettings settings = this.settings;
			WindowSettings windowSettings = settings.windows().get(0);
			boolean retired;
			long now = 0;
			long retryAfterNanos = 0;
			long remaining = 0;
			long nanosUntilMore = 0;
			synchronized (state) {
				retired = state.retired;
				if (!retired) {
					SlidingWindow window = Objects.requireNonNull(Objects.requireNonNull(state.slots).soleWindow);
					now = this.clock.read();
					retryAfterNanos = takeFromSoleWindow(state, window, windowSettings, now, cost);
					remaining = window.remaining(windowSettings, now);
					nanosUntilMore = window.nanosUntilMore(windowSettings, now);
				}
			}
			if (!retired) {
				return RateLimitDecision.of(this.limiterName, key, retryAfterNanos == 0, 0, retryAfterNanos, false, 0,
						settings, now, null, new long[] { remaining, nanosUntilMore });
			}
			state = replace(key, state);
		}
	}

	/**
	 * Admits a call at {@code now} into a key's only window if it has room; the caller holds the
	 * key's monitor.
	 * @return 0 when admitted, else how long until the window would admit it (positive)
	 */
	private static long takeFromSoleWindow(KeyState state, SlidingWindow window, WindowSettings settings, long now,
			long cost) {
		window.prune(settings, now);
		long at = window.availableAt(settings, now, cost);
		if (at != now) {
			return at - now; // a window admits nobody before "now"
		}
		KeyState.Slots slots = Objects.requireNonNull(state.slots);
		window.add(settings, now, cost, ++slots.admissions);
		state.used(now);
		return 0;
	}

	/** A decision of a key with windows or permits; the caller holds the key's monitor. */
	private RateLimitDecision describe(RateLimiterSettings settings, String key, KeyState.@Nullable Bucket bucket, KeyState.Slots slots, long at,
			boolean permitted, long waitNanos, long retryAfterNanos, boolean concurrencyLimited) {
		long[] windowQuotas = null;
		SlidingWindow[] windows = slots.windows;
		if (windows != null) {
			windowQuotas = new long[windows.length * 2];
			for (int i = 0; i < windows.length; i++) {
				WindowSettings window = settings.windows().get(i);
				windowQuotas[2 * i] = windows[i].remaining(window, at);
				windowQuotas[2 * i + 1] = windows[i].nanosUntilMore(window, at);
			}
		}
		int concurrencyLimit = (slots.leases != null) ? slots.concurrencyLimit(settings, at) : 0;
		return RateLimitDecision.of(this.limiterName, key, permitted, waitNanos, retryAfterNanos, concurrencyLimited,
				slots.inFlight(), concurrencyLimit, settings, at, bucket, windowQuotas);
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
			RateLimiterSettings settings = this.settings;
			long now = this.clock.read();
			leases.prune(now, Durations.saturatedNanos(settings.leaseTimeout()));
			if (leases.size() < slots.concurrencyLimit(settings, now)) {
				return;
			}
			// Wait at most until the oldest lease expires: then a permit is free for sure.
			long untilExpiry = Durations.saturatedAdd(leases.oldestStart(), Durations.saturatedNanos(settings.leaseTimeout()))
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
			RateLimiterSettings settings = this.settings;
			long now = this.clock.read();
			leases.prune(now, Durations.saturatedNanos(settings.leaseTimeout()));
			if (leases.size() < slots.concurrencyLimit(settings, now)) {
				return CompletableFuture.completedFuture(null);
			}
			// Wait at most until the oldest lease expires: then a permit is free for sure.
			long untilExpiry = Durations.saturatedAdd(leases.oldestStart(), Durations.saturatedNanos(settings.leaseTimeout()))
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
		RateLimitDecision paused = paused(key, false);
		if (paused != null) {
			return paused;
		}
		KeyState state = key.isEmpty() ? this.shared : this.states.get(key);
		while (true) {
			if (state == null) {
				state = new KeyState(this.settings, this.clock.read());
			}
			// permitted when a call of cost 1 would be admitted now
			RateLimitDecision decision = (state.slots == null) ? inspectBucket(state, key)
					: decideSlots(state, key, 1, 0, false, null);
			if (decision != null) {
				return decision;
			}
			state = null; // forgotten meanwhile: as good as new
		}
	}

	private @Nullable RateLimitDecision inspectBucket(KeyState state, String key) {
		KeyState.Bucket bucket = state.bucket();
		if (bucket == KeyState.RETIRED) {
			return null;
		}
		RateLimiterSettings settings = this.settings;
		long now = this.clock.read();
		LimiterAlgorithm.Verdict verdict = LimiterAlgorithm.decide(settings, bucket, null, now, 1, 0, 0);
		return RateLimitDecision.of(this.limiterName, key, verdict.permitted(), 0, verdict.retryAfterNanos(), false, 0,
				settings, now, verdict.refilled(), null);
	}

	@Override
	public void reset(String key) {
		synchronized (this.pauses) {
			this.pauses.remove(key);
		}
		if (key.isEmpty()) {
			this.shared = null;
		}
		else {
			KeyState removed = this.states.remove(key);
			if (removed != null) {
				this.size.decrementAndGet();
			}
		}
	}

	/**
	 * Returns how many keys the store holds now, the shared bucket aside, after forgetting those
	 * that are due.
	 * @return the number of keys held
	 */
	@Override
	public OptionalLong keyCount() {
		sweep();
		return OptionalLong.of(this.states.size());
	}

	/**
	 * Returns the lowest limit on calls in flight among the keys held, the shared one included,
	 * each read under its monitor as its next decision would find it (a key that has not decided
	 * under adaptive settings yet begins its probe, at {@code min-limit}); {@code initial-limit}
	 * while no key is held. Walks every key, as {@link #keyCount()} does, without a lock over the store: for a
	 * gauge read now and then, never on a decision's path.
	 */
	@Override
	public OptionalInt concurrencyLimit() {
		RateLimiterSettings settings = this.settings;
		AdaptiveConcurrencySettings adaptive = settings.adaptiveConcurrency();
		if (settings.maxConcurrent() == 0) {
			return OptionalInt.empty();
		}
		if (adaptive == null) {
			return OptionalInt.of(settings.maxConcurrent());
		}
		long now = this.clock.read();
		int lowest = lowestLimit(this.shared, settings, now, Integer.MAX_VALUE);
		for (KeyState state : this.states.values()) {
			lowest = lowestLimit(state, settings, now, lowest);
		}
		return OptionalInt.of((lowest != Integer.MAX_VALUE) ? lowest : adaptive.initialLimit());
	}

	/** The lower of {@code lowest} and the key's limit in force; a forgotten key does not count. */
	private static int lowestLimit(@Nullable KeyState state, RateLimiterSettings settings, long now, int lowest) {
		KeyState.Slots slots = (state != null) ? state.slots : null;
		if (state == null || slots == null || slots.leases == null) {
			return lowest;
		}
		synchronized (state) {
			return state.retired ? lowest : Math.min(lowest, slots.concurrencyLimit(settings, now));
		}
	}

	/**
	 * Returns the keys held, counting those being put: at any instant at least the keys in the
	 * map and at most {@code max-keys}.
	 */
	int heldKeys() {
		return this.size.get();
	}

	/**
	 * Forgets the keys of a sample, the least recently used one, until there is room for one more
	 * key. Never waits: a caller may be an event loop.
	 * @return whether there is room; {@code false} when another thread holds the hand, or when
	 * every key counted is still being put by another thread
	 */
	private boolean makeRoom() {
		if (!this.maintenance.tryLock()) {
			return false;
		}
		try {
			while (this.size.get() >= this.maxKeys) {
				if (!forgetOne()) {
					return false;
				}
			}
			return true;
		}
		finally {
			this.maintenance.unlock();
		}
	}

	/** Forgets the key used least recently of a few sampled; the caller holds {@link #maintenance}. */
	private boolean forgetOne() {
		Map.Entry<String, KeyState> victim = null;
		for (int i = 0; i < EVICTION_SAMPLE; i++) {
			Iterator<Map.Entry<String, KeyState>> hand = this.hand;
			if (hand == null || !hand.hasNext()) {
				hand = this.states.entrySet().iterator();
				this.hand = hand;
				if (!hand.hasNext()) {
					break;
				}
			}
			Map.Entry<String, KeyState> candidate = hand.next();
			if (victim == null || candidate.getValue().lastUsed - victim.getValue().lastUsed < 0) {
				victim = candidate;
			}
		}
		if (victim == null) {
			return false;
		}
		KeyState state = victim.getValue();
		retire(state);
		if (this.states.remove(victim.getKey(), state)) {
			this.size.decrementAndGet();
		}
		return true;
	}

	/** Retires a state whatever it holds: the store forgets its key. */
	private static void retire(KeyState state) {
		if (state.slots != null) {
			synchronized (state) {
				state.retired = true;
			}
			return;
		}
		while (true) {
			KeyState.Bucket bucket = state.bucket();
			if (bucket == null || bucket == KeyState.RETIRED || state.replaceBucket(bucket, KeyState.RETIRED)) {
				return;
			}
		}
	}

	/**
	 * Forgets every key idle for {@link #expireNanos}, each retired only if no decision was made
	 * on it meanwhile: a bucket-only key by compare-and-set from the bucket that is back to full,
	 * any other under its monitor, where its decisions record their use.
	 */
	void sweep() {
		// No lock: a sweep may walk a million keys, and a new key must not wait for it to make
		// room. Sweeps and evictions racing on a key both retire it; only one removes it.
		long now = this.clock.read();
		for (Map.Entry<String, KeyState> entry : this.states.entrySet()) {
			KeyState state = entry.getValue();
			if (retireIfIdle(state, now) && this.states.remove(entry.getKey(), state)) {
				this.size.decrementAndGet();
			}
		}
	}

	private boolean retireIfIdle(KeyState state, long now) {
		if (state.slots != null) {
			synchronized (state) {
				if (!state.retired && now - state.lastUsed >= this.expireNanos) {
					state.retired = true;
				}
				return state.retired;
			}
		}
		KeyState.Bucket bucket = state.bucket();
		if (bucket == KeyState.RETIRED) {
			return true;
		}
		if (bucket == null || now - state.lastUsed < this.expireNanos) {
			return false;
		}
		// A decision racing this sweep may not have recorded its use yet: its bucket is not full.
		TokenBucketSettings bucketSettings = Objects.requireNonNull(this.settings.tokenBucket());
		KeyState.Bucket refilled = bucket.refill(bucketSettings, now);
		return refilled.tokens() >= bucketSettings.capacity() && refilled.updatedAt() <= now
				&& state.replaceBucket(bucket, KeyState.RETIRED);
	}

	/**
	 * Schedules a sweep for idle keys unless one is: the store forgets idle keys even when nobody
	 * calls it. The task holds the store only weakly, so a store dropped meanwhile is not kept.
	 */
	private void scheduleSweep() {
		if (this.sweepScheduled.get() || !this.sweepScheduled.compareAndSet(false, true)) {
			return;
		}
		WeakReference<InMemoryRateLimitStore> store = new WeakReference<>(this);
		long delay = Math.min(this.expireNanos, MAX_SWEEP_DELAY_NANOS);
		CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(() -> {
			InMemoryRateLimitStore live = store.get();
			if (live != null) {
				live.sweepScheduled.set(false);
				live.sweep();
				if (!live.states.isEmpty()) {
					live.scheduleSweep();
				}
			}
		});
	}

	/**
	 * After a permit taken at {@code start} came back: wakes those waiting for one of its key and,
	 * when the call ran, learns its hold time, and tells the key's adaptive limit, if it has one, how
	 * the call went (one clock read for both). The caller holds the key's monitor.
	 * @return the waiters without a thread, to complete once the monitor is left, or {@code null}
	 */
	private @Nullable Set<CompletableFuture<Void>> permitReturned(KeyState state, long start, boolean used,
			boolean dropped) {
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
			long now = this.clock.read();
			long held = Math.max(0, now - start);
			long typical = this.typicalHoldNanos;
			// An exponentially weighted average over about the last eight permits; a lost race
			// only drops one sample.
			this.typicalHoldNanos = (typical == 0) ? Math.max(1, held) : Math.max(1, typical + (held - typical) / 8);
			AdaptiveLimit adaptive = slots.adaptive;
			if (adaptive != null) {
				adaptive.onSample(start, now, slots.inFlight() + 1, dropped);
			}
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

		/** What the call took; {@code null} when it was rejected. */
		private final @Nullable Ticket ticket;

		private final RateLimitDecision decision;

		/** Whether the call was given back or its permit returned; guarded by the state's monitor. */
		private boolean done;

		MemoryReservation(KeyState state, @Nullable Ticket ticket, RateLimitDecision decision) {
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
					woken = permitReturned(this.state,
							LimiterAlgorithm.giveBack(settings, this.state, Objects.requireNonNull(this.ticket), clock),
							false, false);
				}
			}
			wake(woken);
		}

		@Override
		public void release() {
			release(false);
		}

		@Override
		public void release(boolean dropped) {
			if (settings.maxConcurrent() == 0) {
				return;
			}
			Set<CompletableFuture<Void>> woken = null;
			synchronized (this.state) {
				if (this.decision.isPermitted() && !this.done) {
					this.done = true;
					long start = LimiterAlgorithm.release(this.state.slots, Objects.requireNonNull(this.ticket).sequence());
					woken = permitReturned(this.state, start, true, dropped);
				}
			}
			wake(woken);
		}

		@Override
		public CompletableFuture<Void> releaseAsync(boolean dropped) {
			release(dropped);
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public String toString() {
			return "Reservation[" + this.decision + "]";
		}

	}

	@Override
	public String toString() {
		return "InMemoryRateLimitStore[" + this.limiterName + ", keys=" + heldKeys() + "]";
	}

}
