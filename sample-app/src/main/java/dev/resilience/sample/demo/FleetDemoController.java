package dev.resilience.sample.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import dev.resilience.sample.client.FleetClient;
import dev.resilience.sample.partner.PartnerLedger;

/**
 * {@code GET /demo/fleet?pause=true&workers=8&seconds=4}: several workers, standing in for the
 * threads of several instances, call the partner's fleet endpoint (10 calls per second per API
 * key) at once through a limiter guessed too high (50 per second), each worker one call every
 * 20 ms, for a few seconds. With {@code pause=true} the limiter is {@code partner-fleet}, which
 * pauses the API key on the partner's first {@code 429}; with {@code pause=false},
 * {@code partner-fleet-unpaused}, which does not. The report counts what the partner answered:
 * with the pause, far fewer {@code 429}s for about as many served.
 */
@RestController
@RequestMapping("/demo")
public class FleetDemoController {

	private static final int MAX_WORKERS = 32;

	private static final int MAX_SECONDS = 20;

	/** The time between a worker's calls, as if requests came in at that pace. */
	private static final long PACE_MILLIS = 20;

	private final FleetClient client;

	private final PartnerLedger ledger;

	private final PauseCounter pauses;

	/** Each run calls with an API key of its own, so that runs share neither quota nor pause. */
	private final AtomicInteger runs = new AtomicInteger();

	public FleetDemoController(FleetClient client, PartnerLedger ledger, PauseCounter pauses) {
		this.client = client;
		this.ledger = ledger;
		this.pauses = pauses;
	}

	@GetMapping("/fleet")
	public FleetReport fleet(@RequestParam(defaultValue = "true") boolean pause,
			@RequestParam(defaultValue = "8") int workers, @RequestParam(defaultValue = "4") int seconds)
			throws InterruptedException {
		if (workers < 1 || workers > MAX_WORKERS) {
			throw new IllegalArgumentException("workers must be between 1 and " + MAX_WORKERS + " but was " + workers);
		}
		if (seconds < 1 || seconds > MAX_SECONDS) {
			throw new IllegalArgumentException("seconds must be between 1 and " + MAX_SECONDS + " but was " + seconds);
		}
		String limiter = pause ? "partner-fleet" : "partner-fleet-unpaused";
		String apiKey = "fleet-" + (pause ? "paused-" : "unpaused-") + this.runs.incrementAndGet();
		LongAdder calls = new LongAdder();
		LongAdder returned = new LongAdder();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		List<Thread> threads = new ArrayList<>(workers);
		for (int i = 0; i < workers; i++) {
			Thread thread = new Thread(() -> work(pause, apiKey, deadline, calls, returned), "fleet-worker-" + i);
			thread.setDaemon(true);
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			// a call started before the deadline ends within its retry policy's max-duration (1 s)
			thread.join(TimeUnit.SECONDS.toMillis(seconds + 10));
			thread.interrupt();
		}
		PartnerLedger.Counts partner = this.ledger.take(apiKey);
		Double ratio = (partner.served() > 0) ? Math.round(100.0 * partner.throttled() / partner.served()) / 100.0
				: null;
		return new FleetReport(pause, limiter, workers, seconds, calls.intValue(), returned.intValue(),
				calls.intValue() - returned.intValue(), partner.served(), partner.throttled(), ratio,
				this.pauses.take(limiter, apiKey));
	}

	private void work(boolean pause, String apiKey, long deadline, LongAdder calls, LongAdder returned) {
		long id = 0;
		while (System.nanoTime() - deadline < 0 && !Thread.currentThread().isInterrupted()) {
			calls.increment();
			try {
				if (pause) {
					this.client.fetchOrder(apiKey, ++id);
				}
				else {
					this.client.fetchOrderUnpaused(apiKey, ++id);
				}
				returned.increment();
			}
			catch (RuntimeException ex) {
				// turned away by the limiter, or the partner's 429 not retried: the next call comes anyway
			}
			try {
				Thread.sleep(PACE_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
