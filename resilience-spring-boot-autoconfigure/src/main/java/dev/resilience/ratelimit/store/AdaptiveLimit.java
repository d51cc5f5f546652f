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
 * {@value #CUT_RATIO} of itself, or in proportion to how far the recent latency (a moving
 * average) is over that, to no less than {@value #DEEPEST_CUT_RATIO}, whatever the algorithm: Gradient2 ignores drops, and its
 * long-term average follows a partner that queues until its queue term makes the limit creep up
 * (Netflix concurrency-limits #134). Calls that started before the last cut saw the limit before
 * it, so they do not cut again: a burst of drops is one cut, not a collapse to the minimum it
 * would never grow back from.</li>
 * <li><b>Growth is one step a round trip, and only of a limit in use.</b> Between congested calls
 * the limit follows the algorithm down at once, and up by one per ended call that found the limit
 * full (and did not see the algorithm lower its estimate: Vegas runs ahead of the limit and sees
 * a queue below our congestion ratio) until the first cut, then by one per round trip of such calls (TCP's slow start, then its
 * congestion avoidance: a step a call doubles the limit each round trip, well past where the
 * queue shows, before a cut a round trip can undo it); and an algorithm whose own estimate ran
 * away to more than twice the limit in force (it is never told of our cuts) is restarted there.</li>
 * <li><b>The lowest latency is measured without a queue of ours.</b> A latency measured while the
 * limit fills the partner's queue holds that queue, and twice it allows a queue twice as long: a
 * lowest latency forgotten and measured again under load makes the limit creep up each time. So
 * the lowest latency is measured by a probe, as Envoy's adaptive concurrency filter and BBR's
 * ProbeRTT do: the limit is held at {@code min-limit} until {@value #PROBE_CALLS} calls that started
 * after the probe began have ended, and the lowest of their latencies replaces the lowest seen
 * (which any faster call lowers meanwhile). The first probe is at the key's first call, the next
 * ones every {@link #PROBE_INTERVAL_NANOS}, or further apart when a probe takes more than
 * 1/{@value #PROBE_INTERVAL_FACTOR} of that: a partner slower for good becomes the new normal at
 * the next probe instead of a congestion that never ends.</li>
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

	/** The weight of each call's latency in the recent latency, which sizes the cuts. */
	static final double RECENT_WEIGHT = 0.1;

	/** How many calls, at {@code min-limit} in flight, measure the lowest latency. */
	static final int PROBE_CALLS = 5;

	/** How long the lowest latency a probe measured counts, at least. */
	static final long PROBE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

	/** A probe and the time to the next one are at least this many times the probe's length. */
	static final int PROBE_INTERVAL_FACTOR = 50;

	private final AdaptiveConcurrencySettings settings;

	private Limit algorithm;

	private int limit;

	/** A moving average of the latencies of the calls outside probes; 0 before the first. */
	private double recent;

	/** The lowest latency: of the last probe's calls, or of any call since, when lower. */
	private long lowest = Long.MAX_VALUE;

	/** When the probe in progress began; {@link Long#MIN_VALUE} while none is. */
	private long probeStart;

	/** The calls of the probe in progress that have ended, and the lowest of their latencies. */
	private int probeCalls;

	private long probeLowest = Long.MAX_VALUE;

	/** When the next probe begins, at the first call that ends from then on. */
	private long nextProbe;

	/**
	 * Growth earned towards the next step up, after the first cut: one step per round trip of
	 * uncongested calls (1/limit a call), as TCP's congestion avoidance; before it, a step a call.
	 */
	private double credit;

	private boolean cutOnce;

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
		this.probeStart = now;
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
	 * Returns the limit in force: {@code min-limit} while a probe measures the lowest latency.
	 * @return how many calls of the key may be in flight
	 */
	int limit() {
		return (this.probeStart != Long.MIN_VALUE) ? this.settings.minLimit() : this.limit;
	}

	/**
	 * Learns from a call that ended.
	 * @param start when the call took its permit
	 * @param end when it returned it
	 * @param inFlight the calls in flight as it ended, itself included
	 * @param dropped whether it ended with a throttle signal or a timeout
	 */
	void onSample(long start, long end, int inFlight, boolean dropped) {
		if (end - start <= 0) {
			return; // returned before its reserved start: it never ran, and would set a lowest latency of 0
		}
		long latency = end - start;
		if (probing(start, end, latency)) {
			return;
		}
		this.lowest = Math.min(this.lowest, latency);
		long lowest = this.lowest;
		this.recent = (this.recent == 0) ? latency : this.recent + RECENT_WEIGHT * (latency - this.recent);
		boolean congested = dropped || latency > CONGESTED_RATIO * lowest;
		if (congested) {
			if (start >= this.lastCut) {
				this.lastCut = end;
				this.cutOnce = true;
				this.credit = 0;
				this.algorithm.onSample(start, latency, inFlight, dropped);
				// The further the latency is over congested, the longer the partner's queue: cut in
				// proportion, so that a partner whose capacity fell is found in a few round trips. By
				// the recent latency, unless this one is lower: one call stalled (a pause, a thread
				// that waited for a core) says little about the partner's queue.
				double keep = Math.max(DEEPEST_CUT_RATIO,
						Math.min(CUT_RATIO, CONGESTED_RATIO * lowest / Math.min(latency, this.recent)));
				this.limit = clamp(this.settings, Math.min(this.algorithm.getLimit(), (int) (this.limit * keep)));
			}
			return;
		}
		int before = this.algorithm.getLimit();
		this.algorithm.onSample(start, latency, inFlight, false);
		int proposed = this.algorithm.getLimit();
		// A limit not in use is not raised (RFC 7661): callers that never fill it say nothing about
		// a higher one, and a limit grown far above them takes many cuts to come down.
		int grown = this.limit;
		// Nor while the algorithm lowers its estimate: one that ran ahead of the limit (Vegas) sees a
		// queue there below our congestion ratio.
		if (inFlight >= this.limit && proposed >= before) {
			this.credit += this.cutOnce ? 1.0 / this.limit : 1;
			if (this.credit >= 1) {
				this.credit -= 1;
				grown++;
			}
		}
		this.limit = clamp(this.settings, Math.min(proposed, grown));
		if (proposed > 2 * this.limit) {
			this.algorithm = algorithm(this.settings, this.limit);
		}
	}

	/**
	 * Counts a call towards the probe in progress, or begins one when it is due; returns whether
	 * the call was the probe's (or ended during it), so not to be learnt from otherwise: calls
	 * that started before the probe waited behind the queue it drains.
	 */
	private boolean probing(long start, long end, long latency) {
		if (this.probeStart == Long.MIN_VALUE) {
			if (end - this.nextProbe < 0) {
				return false;
			}
			this.probeStart = end;
			this.probeCalls = 0;
			this.probeLowest = Long.MAX_VALUE;
			return true;
		}
		if (start - this.probeStart >= 0) {
			this.probeLowest = Math.min(this.probeLowest, latency);
			if (++this.probeCalls >= PROBE_CALLS) {
				this.lowest = this.probeLowest;
				this.nextProbe = end + Math.max(PROBE_INTERVAL_NANOS, PROBE_INTERVAL_FACTOR * (end - this.probeStart));
				this.probeStart = Long.MIN_VALUE;
			}
		}
		return true;
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
