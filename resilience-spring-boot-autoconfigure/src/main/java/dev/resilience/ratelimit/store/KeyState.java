package dev.resilience.ratelimit.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.resilience.ratelimit.AdaptiveConcurrencySettings;
import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimiterSettings;
import dev.resilience.ratelimit.TokenBucketSettings;

/**
 * Everything one limiter remembers about one key: its token bucket, its windows (in the order of
 * {@link RateLimiterSettings#windows()}) and its concurrency permits.
 * <p>
 * The bucket is an immutable {@link Bucket} replaced whole by compare-and-set, as Resilience4j's
 * {@code AtomicRateLimiter} does: a limiter with only a token bucket decides without a lock, so
 * threads on one key never block each other. Windows and leases are mutable {@link Slots},
 * guarded by this object's monitor, which the decisions of such limiters hold throughout (their
 * bucket is then written only under the monitor too). Waiters for a returned permit wait on the
 * monitor. A bucket-only key is this object and its bucket: a few dozen bytes.
 * <p>
 * A state the store has forgotten is <em>retired</em>, for good: a bucket-only state's bucket is
 * then {@link #RETIRED} (set by compare-and-set, so a decision racing the store either lands
 * first, and the store keeps the key, or fails its own compare-and-set and looks the key up
 * again); any other state is marked {@link #retired} under its monitor, which its decisions
 * check under the same monitor.
 */
final class KeyState {

	/** The bucket of a retired bucket-only state: never a real bucket. */
	static final Bucket RETIRED = new Bucket(Long.MIN_VALUE, Long.MIN_VALUE);

	private static final VarHandle BUCKET;

	private static final VarHandle LAST_USED;

	static {
		try {
			BUCKET = MethodHandles.lookup().findVarHandle(KeyState.class, "bucket", Bucket.class);
			LAST_USED = MethodHandles.lookup().findVarHandle(KeyState.class, "lastUsed", long.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/*
	 * Speed: a key is found by one ConcurrentHashMap read and decided by one compare-and-set of
	 * "bucket" (or under the monitor), and each decision records its use in "lastUsed" with a plain
	 * store to the line that compare-and-set or monitor has just written anyway: about free. It
	 * used to skip the store while the recorded use was under a second old; that branch, taken
	 * once a second, was compiled as never taken, so each compiled layer of a hot path was thrown
	 * away in turn, a second apart, and the first seconds of a busy key ran interpreted. Racing
	 * decisions may leave the older of their times; the store keeps keys a margin past their
	 * horizon, and retires a bucket-only key only when its bucket is full.
	 */

	/** The bucket; {@code null} without a token bucket, {@link #RETIRED} once forgotten. */
	private volatile @Nullable Bucket bucket;

	/** The windows and leases; {@code null} for a limiter with only a token bucket. */
	final @Nullable Slots slots;

	/**
	 * When a decision last used the key, on the store's clock; for a key with {@link #slots}, the
	 * slot of the call it admitted last, which may be ahead of the clock.
	 */
	volatile long lastUsed;

	/** Whether a state with {@link #slots} was forgotten; guarded by this object's monitor. */
	boolean retired;

	KeyState(RateLimiterSettings settings, long now) {
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		if (bucketSettings != null) {
			this.bucket = new Bucket(TokenBucket.full(bucketSettings, now));
		}
		this.slots = (settings.windows().isEmpty() && settings.maxConcurrent() == 0) ? null : new Slots(settings, now);
		this.lastUsed = now;
	}

	@Nullable Bucket bucket() {
		return this.bucket;
	}

	/** Replaces the bucket if it is still {@code expected}. */
	boolean replaceBucket(Bucket expected, Bucket replacement) {
		return BUCKET.compareAndSet(this, expected, replacement);
	}

	/** Records a use at {@code now}. */
	void used(long now) {
		LAST_USED.setOpaque(this, now);
	}

	/**
	 * A token bucket's tokens at a time. Flat and small, to keep a key small.
	 *
	 * @param tokens the tokens at {@code updatedAt}
	 * @param updatedAt the time of the last refill or reservation
	 */
	record Bucket(long tokens, long updatedAt) implements RateLimitDecision.BucketLevel {

		Bucket(TokenBucket.State state) {
			this(state.tokens(), state.updatedAt());
		}

		TokenBucket.State state() {
			return new TokenBucket.State(this.tokens, this.updatedAt);
		}

		/** This bucket refilled to {@code at}. */
		Bucket refill(TokenBucketSettings settings, long at) {
			TokenBucket.State refilled = TokenBucket.refill(settings, state(), at);
			return (refilled.tokens() == this.tokens && refilled.updatedAt() == this.updatedAt) ? this
					: new Bucket(refilled);
		}

		@Override
		public long tokensAt(TokenBucketSettings settings, long at) {
			return refill(settings, at).tokens();
		}

		@Override
		public long availableAt(TokenBucketSettings settings, long at, long tokens) {
			// TokenBucket.availableAt refills to "at" itself
			return TokenBucket.availableAt(settings, state(), at, tokens);
		}

	}

	/**
	 * The windows and leases of a key, guarded by the monitor of their {@link KeyState}.
	 */
	static final class Slots {

		final SlidingWindow @Nullable [] windows;

		final @Nullable Leases leases;

		/**
		 * The window when it is the key's only constraint (no token bucket, no permits), else
		 * {@code null}: such a key is decided by a shorter path (see
		 * {@link InMemoryRateLimitStore#tryAcquire}).
		 */
		final @Nullable SlidingWindow soleWindow;

		/**
		 * The key's limit on calls in flight under {@code max-concurrent: adaptive}, made at its
		 * first use under such settings; {@code null} otherwise.
		 */
		@Nullable AdaptiveLimit adaptive;

		/** The sequence number of the last admitted call, which names its window entries and lease. */
		long admissions;

		/** Callers waiting on the monitor for a permit to be returned. */
		int permitWaiters;

		/**
		 * Callers waiting without a thread for a permit to be returned, completed when one is;
		 * each removes itself when it completes otherwise (timed out, cancelled).
		 */
		@Nullable Set<CompletableFuture<Void>> permitFutures;

		Slots(RateLimiterSettings settings, long now) {
			int windowCount = settings.windows().size();
			if (windowCount > 0) {
				this.windows = new SlidingWindow[windowCount];
				for (int i = 0; i < windowCount; i++) {
					this.windows[i] = SlidingWindow.create(settings.windowAlgorithm(), now);
				}
			}
			else {
				this.windows = null;
			}
			this.leases = (settings.maxConcurrent() > 0) ? new Leases() : null;
			this.soleWindow = (windowCount == 1 && this.leases == null && settings.tokenBucket() == null)
					? this.windows[0] : null;
		}

		int inFlight() {
			return (this.leases != null) ? this.leases.size() : 0;
		}

		/**
		 * Returns how many calls of the key may be in flight: {@code max-concurrent}, or the key's
		 * adaptive limit, which a change of settings carries over within its new bounds.
		 */
		int concurrencyLimit(RateLimiterSettings settings, long now) {
			AdaptiveConcurrencySettings adaptiveSettings = settings.adaptiveConcurrency();
			if (adaptiveSettings == null) {
				// Written only when the settings stopped being adaptive: a fixed limit reads, never writes.
				if (this.adaptive != null) {
					this.adaptive = null;
				}
				return settings.maxConcurrent();
			}
			AdaptiveLimit limit = this.adaptive;
			if (limit == null) {
				limit = new AdaptiveLimit(adaptiveSettings, now);
				this.adaptive = limit;
			}
			else if (!limit.settings().equals(adaptiveSettings)) {
				limit = limit.withSettings(adaptiveSettings, now);
				this.adaptive = limit;
			}
			return limit.limit();
		}

		void addPermitFuture(CompletableFuture<Void> future) {
			Set<CompletableFuture<Void>> futures = this.permitFutures;
			if (futures == null) {
				futures = new LinkedHashSet<>();
				this.permitFutures = futures;
			}
			futures.add(future);
		}

		void removePermitFuture(CompletableFuture<Void> future) {
			Set<CompletableFuture<Void>> futures = this.permitFutures;
			if (futures != null) {
				futures.remove(future);
			}
		}

		/** Takes every waiter without a thread, to complete once the monitor is left. */
		@Nullable Set<CompletableFuture<Void>> takePermitFutures() {
			Set<CompletableFuture<Void>> futures = this.permitFutures;
			if (futures == null || futures.isEmpty()) {
				return null;
			}
			this.permitFutures = null;
			return futures;
		}

	}

}
