package dev.resilience.ratelimit.store;

import java.util.concurrent.TimeUnit;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;

import dev.resilience.ratelimit.AdaptiveConcurrencySettings;

/**
 * The limit on calls in flight of one key with {@code max-concurrent: adaptive} (SPEC §11):
 * Netflix's concurrency-limits proposes it from each ended call, and three guards of ours keep
 * the proposal from the library's known failure modes:
 * <ul>
 * <li><b>A congested call cuts, once per round trip.</b> A call that ends with a drop, or whose
 * latency is more than {@value #CONGESTED_RATIO} times the lowest seen, cuts the limit to
 * {@value #CUT_RATIO} of itself, or in proportion to how far its latency is over that (to no less
 * than {@value #DEEPEST_CUT_RATIO}), whatever the algorithm: Gradient2 ignores drops, and its
 * long-term average follows a partner that queues until its queue term makes the limit creep up
 * (Netflix concurrency-limits #134). Calls that started before the last cut saw the limit before
 * it, so they do not cut again: a burst of drops is one cut, not a collapse to the minimum it
 * would never grow back from.</li>
 * <li><b>Growth is one call at a time, and only of a limit in use.</b> Between congested calls the
 * limit follows the algorithm down at once, and up by one per ended call that found the limit
 * full; and an algorithm whose own estimate ran
 * away to more than twice the limit in force (it is never told of our cuts) is restarted there.</li>
 * <li><b>The lowest latency is forgotten.</b> It is the lowest of the last one to two periods of
 * {@link #BASELINE_PERIOD_NANOS}, so that a partner slower for good becomes the new normal
 * instead of a congestion that never ends.</li>
 * </ul>
 * Mutable and not thread safe: the key's monitor guards it. Time comes from the store's ticker,
 * so tests move it by hand.
 */
final class AdaptiveLimit {

	/** How many times the lowest latency a call may take before it counts as congested. */
	static final double CONGESTED_RATIO = 2.0;

	/** The share of the limit a cut keeps, at most. */
	static final double CUT_RATIO = 0.9;

	/**
	 * The share of the limit a cut keeps, at least: a call far slower than congested cuts to
	 * {@value #CONGESTED_RATIO} × lowest ÷ its latency of the limit, no lower than this.
	 */
	static final double DEEPEST_CUT_RATIO = 0.5;

	/** How long the lowest latency seen counts: for one to two of these. */
	static final long BASELINE_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final AdaptiveConcurrencySettings settings;

	private Limit algorithm;

	private int limit;

	/** When the current period of the lowest latency began. */
	private long periodStart;

	private long periodLowest = Long.MAX_VALUE;

	private long previousLowest = Long.MAX_VALUE;

	/** When the limit was last cut; calls that started before then do not cut again. */
	private long lastCut = Long.MIN_VALUE;

	/**
	 * Creates the limit of a key that has seen no call, at {@code initial-limit}.
	 * @param settings the limiter's adaptive settings
	 * @param now the time
	 */
	AdaptiveLimit(AdaptiveConcurrencySettings settings, long now) {
		this(settings, settings.initialLimit(), now);
	}

	private AdaptiveLimit(AdaptiveConcurrencySettings settings, int limit, long now) {
		this.settings = settings;
		this.limit = limit;
		this.algorithm = algorithm(settings, limit);
		this.periodStart = now;
	}

	/**
	 * Returns a limit under new settings that goes on from this one's: the limit in force, kept
	 * within the new bounds.
	 * @param settings the new settings
	 * @param now the time
	 * @return the limit under the new settings
	 */
	AdaptiveLimit withSettings(AdaptiveConcurrencySettings settings, long now) {
		return new AdaptiveLimit(settings, clamp(settings, this.limit), now);
	}

	AdaptiveConcurrencySettings settings() {
		return this.settings;
	}

	/**
	 * Returns the limit in force.
	 * @return how many calls of the key may be in flight
	 */
	int limit() {
		return this.limit;
	}

	/**
	 * Learns from a call that ended.
	 * @param start when the call took its permit
	 * @param end when it returned it
	 * @param inFlight the calls in flight as it ended, itself included
	 * @param dropped whether it ended with a throttle signal or a timeout
	 */
	void onSample(long start, long end, int inFlight, boolean dropped) {
		long latency = Math.max(1, end - start);
		long lowest = lowestLatency(end, latency);
		boolean congested = dropped || latency > CONGESTED_RATIO * lowest;
		if (congested) {
			if (start >= this.lastCut) {
				this.lastCut = end;
				this.algorithm.onSample(start, latency, inFlight, dropped);
				// The further the latency is over congested, the longer the partner's queue: cut in
				// proportion, so that a partner whose capacity fell is found in a few round trips.
				double keep = Math.max(DEEPEST_CUT_RATIO, Math.min(CUT_RATIO, CONGESTED_RATIO * lowest / latency));
				this.limit = clamp(this.settings, Math.min(this.algorithm.getLimit(), (int) (this.limit * keep)));
			}
			return;
		}
		this.algorithm.onSample(start, latency, inFlight, false);
		int proposed = this.algorithm.getLimit();
		// A limit not in use is not raised (RFC 7661): callers that never fill it say nothing about
		// a higher one, and a limit grown far above them takes many cuts to come down.
		int grown = (inFlight >= this.limit) ? this.limit + 1 : this.limit;
		this.limit = clamp(this.settings, Math.min(proposed, grown));
		if (proposed > 2 * this.limit) {
			this.algorithm = algorithm(this.settings, this.limit);
		}
	}

	/** The lowest latency of this period and the one before, after counting {@code latency}. */
	private long lowestLatency(long now, long latency) {
		long sincePeriodStart = now - this.periodStart;
		if (sincePeriodStart >= BASELINE_PERIOD_NANOS) {
			this.previousLowest = (sincePeriodStart < 2 * BASELINE_PERIOD_NANOS) ? this.periodLowest : Long.MAX_VALUE;
			this.periodLowest = Long.MAX_VALUE;
			this.periodStart = now;
		}
		this.periodLowest = Math.min(this.periodLowest, latency);
		return Math.min(this.periodLowest, this.previousLowest);
	}

	private static int clamp(AdaptiveConcurrencySettings settings, int limit) {
		return Math.max(settings.minLimit(), Math.min(settings.maxLimit(), limit));
	}

	/** The library's algorithm, starting at {@code limit}, within the settings' bounds. */
	private static Limit algorithm(AdaptiveConcurrencySettings settings, int limit) {
		return switch (settings.algorithm()) {
			case GRADIENT -> Gradient2Limit.newBuilder()
				.initialLimit(limit)
				.minLimit(settings.minLimit())
				.maxConcurrency(settings.maxLimit())
				.build();
			case VEGAS -> VegasLimit.newBuilder().initialLimit(limit).maxConcurrency(settings.maxLimit()).build();
			case AIMD -> AIMDLimit.newBuilder()
				.initialLimit(limit)
				.minLimit(settings.minLimit())
				.maxLimit(settings.maxLimit())
				.build();
		};
	}

}
