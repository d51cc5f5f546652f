package dev.resilience.sample.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.resilience.ratelimit.RateLimitDecision;
import dev.resilience.ratelimit.RateLimitExceededException;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.sample.client.CapacityClient;
import dev.resilience.sample.partner.LimitedCapacityPartner;

/**
 * {@code GET /demo/adaptive?capacities=8,2,8&seconds=6&workers=32}: workers call a partner of
 * limited capacity ({@link LimitedCapacityPartner}) without pause through {@code partner-adaptive}
 * ({@code max-concurrent: adaptive}), while the partner's capacity goes through
 * {@code capacities}, each for {@code seconds}. The report is the limit over time (sampled every
 * {@value #SAMPLE_MILLIS} ms) and each phase summed up: the limit falls when the partner's capacity
 * falls, as its latency rises, and grows back when the capacity comes back. Runs one at a time,
 * each from a fresh limit: a probe of the partner's lowest latency at {@code min-limit}, then
 * {@code initial-limit}.
 */
@RestController
@RequestMapping("/demo")
public class AdaptiveDemoController {

	static final long SAMPLE_MILLIS = 100;

	private static final String LIMITER = "partner-adaptive";

	private static final int MAX_WORKERS = 64;

	private static final int MAX_CAPACITY = 64;

	private static final int MAX_PHASES = 6;

	private static final int MAX_SECONDS = 20;

	private final CapacityClient client;

	private final LimitedCapacityPartner partner;

	private final RateLimiter limiter;

	public AdaptiveDemoController(CapacityClient client, LimitedCapacityPartner partner,
			RateLimiterRegistry limiters) {
		this.client = client;
		this.partner = partner;
		this.limiter = limiters.get(LIMITER);
	}

	@GetMapping("/adaptive")
	public synchronized AdaptiveReport adaptive(@RequestParam(defaultValue = "8,2,8") String capacities,
			@RequestParam(defaultValue = "6") int seconds, @RequestParam(defaultValue = "32") int workers)
			throws InterruptedException {
		int[] phases = phases(capacities);
		if (seconds < 1 || seconds > MAX_SECONDS) {
			throw new IllegalArgumentException("seconds must be between 1 and " + MAX_SECONDS + " but was " + seconds);
		}
		if (workers < 1 || workers > MAX_WORKERS) {
			throw new IllegalArgumentException("workers must be between 1 and " + MAX_WORKERS + " but was " + workers);
		}
		// Each run starts from a fresh limit (its probe, then initial-limit): the previous run's
		// workers have all returned their permits.
		this.limiter.reset("");
		this.partner.setCapacity(phases[0]);
		long start = System.nanoTime();
		long end = start + TimeUnit.SECONDS.toNanos((long) seconds * phases.length);
		LongAdder rejected = new LongAdder();
		List<Thread> threads = new ArrayList<>(workers);
		for (int i = 0; i < workers; i++) {
			Thread thread = new Thread(() -> work(end, rejected), "adaptive-worker-" + i);
			thread.setDaemon(true);
			thread.start();
			threads.add(thread);
		}
		List<AdaptiveReport.Sample> timeline = new ArrayList<>();
		List<AdaptiveReport.Phase> summaries = new ArrayList<>();
		try {
			for (int i = 0; i < phases.length; i++) {
				summaries.add(phase(phases[i], seconds, start + TimeUnit.SECONDS.toNanos((long) seconds * i), start,
						rejected, timeline));
			}
		}
		finally {
			for (Thread thread : threads) {
				// a call started before the end waits at most max-wait (1 s) plus the partner's queue
				thread.join(TimeUnit.SECONDS.toMillis(10));
				thread.interrupt();
			}
		}
		return new AdaptiveReport(LIMITER, workers, summaries, timeline);
	}

	/** Runs one phase: sets the partner's capacity, then samples until the phase is over. */
	private AdaptiveReport.Phase phase(int capacity, int seconds, long phaseStart, long runStart, LongAdder rejected,
			List<AdaptiveReport.Sample> timeline) throws InterruptedException {
		this.partner.setCapacity(capacity);
		long phaseEnd = phaseStart + TimeUnit.SECONDS.toNanos(seconds);
		long secondHalf = phaseStart + TimeUnit.SECONDS.toNanos(seconds) / 2;
		long servedBefore = this.partner.served();
		long rejectedBefore = rejected.sum();
		double limits = 0;
		double inFlight = 0;
		double inside = 0;
		int settled = 0;
		int limit = 0;
		for (long next = phaseStart; next - phaseEnd < 0; next += TimeUnit.MILLISECONDS.toNanos(SAMPLE_MILLIS)) {
			long delay = next - System.nanoTime();
			if (delay > 0) {
				TimeUnit.NANOSECONDS.sleep(delay);
			}
			RateLimitDecision state = this.limiter.inspect("");
			int insidePartner = this.partner.inside();
			limit = state.getMaxConcurrent();
			timeline.add(new AdaptiveReport.Sample(TimeUnit.NANOSECONDS.toMillis(next - runStart), capacity, limit,
					state.getInFlight(), insidePartner));
			if (next - secondHalf >= 0) {
				limits += limit;
				inFlight += state.getInFlight();
				inside += insidePartner;
				settled++;
			}
		}
		long delay = phaseEnd - System.nanoTime();
		if (delay > 0) {
			TimeUnit.NANOSECONDS.sleep(delay);
		}
		long served = this.partner.served() - servedBefore;
		return new AdaptiveReport.Phase(capacity, seconds, served, Math.round(10.0 * served / seconds) / 10.0,
				rejected.sum() - rejectedBefore, this.limiter.inspect("").getMaxConcurrent(), mean(limits, settled),
				mean(inFlight, settled), mean(inside, settled));
	}

	private void work(long end, LongAdder rejected) {
		while (System.nanoTime() - end < 0 && !Thread.currentThread().isInterrupted()) {
			try {
				this.client.work();
			}
			catch (RateLimitExceededException ex) {
				rejected.increment(); // waited max-wait for a permit in vain: the next call comes anyway
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static double mean(double sum, int count) {
		return (count > 0) ? Math.round(10.0 * sum / count) / 10.0 : 0;
	}

	private static int[] phases(String capacities) {
		int[] phases;
		try {
			phases = Arrays.stream(capacities.split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("capacities must be numbers separated by commas but was " + capacities);
		}
		if (phases.length < 1 || phases.length > MAX_PHASES) {
			throw new IllegalArgumentException("capacities must name 1 to " + MAX_PHASES + " phases but was " + capacities);
		}
		for (int capacity : phases) {
			if (capacity < 1 || capacity > MAX_CAPACITY) {
				throw new IllegalArgumentException(
						"each capacity must be between 1 and " + MAX_CAPACITY + " but was " + capacity);
			}
		}
		return phases;
	}

}
