package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One atomic decision over every constraint of a limiter, as a pure function of the settings,
 * the key's state and the time. A call is admitted at the earliest time every constraint admits
 * it; since each constraint only ever admits more as time passes, that is the latest of their
 * individual earliest times. A rejected call changes nothing.
 */
final class LimiterAlgorithm {

	private LimiterAlgorithm() {
	}

	/** What an admitted call took, so that it can be given back exactly. */
	record Ticket(long id, long cost, long at, TokenBucket.@Nullable State bucketBefore,
			TokenBucket.@Nullable State bucketAfter) {
	}

	/**
	 * The new state, the decision and, when admitted, the ticket. {@code shortOfPermitOnly} tells
	 * a rejection that only lacks a concurrency permit: its tokens and windows would admit it in time.
	 */
	record Outcome(LimiterState state, RateLimitDecision decision, @Nullable Ticket ticket, boolean shortOfPermitOnly) {
	}

	/** Decides one call; the store has already checked that the cost could ever be admitted. */
	static Outcome decide(String name, String key, RateLimiterSettings settings, @Nullable LimiterState current,
			long now, long cost, long maxWaitNanos, long id) {
		LimiterState state = ((current != null) ? current : LimiterState.initial(settings, now)).prune(settings, now);
		long at = now;
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		if (bucketSettings != null && state.bucket() != null) {
			at = Math.max(at, TokenBucket.availableAt(bucketSettings, state.bucket(), now, cost));
		}
		for (int i = 0; i < state.windows().length; i++) {
			at = Math.max(at, state.windows()[i].availableAt(settings.windows().get(i), now, cost));
		}
		boolean concurrencyFull = settings.maxConcurrent() > 0 && state.leases().size() >= settings.maxConcurrent();
		long wait = at - now;
		if (concurrencyFull || wait > maxWaitNanos) {
			long retryAfter = concurrencyFull ? Math.max(wait, state.leases().earliestExpiry() - now) : wait;
			RateLimitDecision decision = describe(name, key, settings, state, now, false, 0, retryAfter);
			return new Outcome(state, decision, null, concurrencyFull && wait <= maxWaitNanos);
		}
		TokenBucket.State bucketAfter = null;
		if (bucketSettings != null && state.bucket() != null) {
			bucketAfter = TokenBucket.reserve(bucketSettings, state.bucket(), at, cost).state();
		}
		SlidingWindow[] windows = state.windows().clone();
		for (int i = 0; i < windows.length; i++) {
			windows[i] = windows[i].add(settings.windows().get(i), at, cost, id);
		}
		Leases leases = state.leases();
		if (settings.maxConcurrent() > 0) {
			leases = leases.add(id, Durations.saturatedAdd(at, Durations.toNanos(settings.leaseTimeout())));
		}
		LimiterState admitted = new LimiterState(bucketAfter, windows, leases);
		RateLimitDecision decision = describe(name, key, settings, admitted, at, true, wait, 0);
		return new Outcome(admitted, decision, new Ticket(id, cost, at, state.bucket(), bucketAfter), false);
	}

	/**
	 * Undoes an admitted call: its tokens, window entries and permit, as if it had not happened.
	 * When others took tokens since, the tokens given back are reduced by what the bucket earned
	 * since the call: had the call not happened, those could have overflowed the capacity, so
	 * giving back all of them could admit more than the bucket allows.
	 */
	static LimiterState giveBack(RateLimiterSettings settings, LimiterState state, Ticket ticket, long now) {
		TokenBucket.State bucket = state.bucket();
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		if (bucketSettings != null && bucket != null) {
			if (bucket == ticket.bucketAfter()) {
				// Nobody took tokens since: restore the bucket exactly.
				bucket = ticket.bucketBefore();
			}
			else {
				// The bucket may be dated ahead by later reservations: what it earned up to then counts.
				long until = Math.max(now, bucket.updatedAt());
				long returned = Math.max(0, ticket.cost() - earnedBetween(bucketSettings, ticket.at(), until));
				bucket = new TokenBucket.State(Math.min(bucketSettings.capacity(), bucket.tokens() + returned),
						bucket.updatedAt());
			}
		}
		SlidingWindow[] windows = state.windows().clone();
		for (int i = 0; i < windows.length; i++) {
			windows[i] = windows[i].remove(settings.windows().get(i), ticket.id(), ticket.cost(), ticket.at());
		}
		return new LimiterState(bucket, windows, state.leases().remove(ticket.id()));
	}

	/** The most tokens a bucket can earn between two times, capacity aside. */
	private static long earnedBetween(TokenBucketSettings settings, long from, long to) {
		if (to <= from) {
			return 0;
		}
		long period = settings.refillPeriodNanos();
		if (settings.refillStrategy() == RefillStrategy.INTERVAL) {
			return Durations.mulDivCeil(Durations.mulDivCeil(to - from, 1, period), settings.refillTokens(), 1);
		}
		return Durations.mulDivCeil(to - from, settings.refillTokens(), period);
	}

	/** Returns a concurrency permit. */
	static LimiterState release(LimiterState state, long id) {
		return new LimiterState(state.bucket(), state.windows(), state.leases().remove(id));
	}

	/** The state of a key at {@code now}, consuming nothing. */
	static RateLimitDecision inspect(String name, String key, RateLimiterSettings settings,
			@Nullable LimiterState current, long now) {
		LimiterState state = ((current != null) ? current : LimiterState.initial(settings, now)).prune(settings, now);
		return describe(name, key, settings, state, now, true, 0, 0);
	}

	private static RateLimitDecision describe(String name, String key, RateLimiterSettings settings,
			LimiterState state, long at, boolean permitted, long waitNanos, long retryAfterNanos) {
		List<RateLimitDecision.Quota> quotas = new ArrayList<>();
		TokenBucketSettings bucketSettings = settings.tokenBucket();
		TokenBucket.State bucket = state.bucket();
		if (bucketSettings != null && bucket != null) {
			TokenBucket.State refilled = TokenBucket.refill(bucketSettings, bucket, at);
			long reset = (refilled.tokens() >= bucketSettings.capacity()) ? 0
					: TokenBucket.availableAt(bucketSettings, refilled, at, refilled.tokens() + 1) - at;
			long fullRefill = Durations.mulDivCeil(bucketSettings.capacity(), bucketSettings.refillPeriodNanos(),
					bucketSettings.refillTokens());
			quotas.add(new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.TOKEN_BUCKET, bucketSettings.capacity(), Duration.ofNanos(fullRefill),
					refilled.tokens(), Duration.ofNanos(Math.max(0, reset))));
		}
		for (int i = 0; i < state.windows().length; i++) {
			WindowSettings window = settings.windows().get(i);
			SlidingWindow windowState = state.windows()[i];
			quotas.add(new RateLimitDecision.Quota(RateLimitDecision.Quota.Type.WINDOW, window.limit(),
					window.period(), windowState.remaining(window, at),
					Duration.ofNanos(windowState.nanosUntilMore(window, at))));
		}
		return new RateLimitDecision(name, key, permitted, Duration.ofNanos(Math.max(0, waitNanos)),
				Duration.ofNanos(Math.max(0, retryAfterNanos)), quotas, state.leases().size(), settings.maxConcurrent());
	}

}
