package dev.resilience.autoconfigure.support;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * What BlockHound checks in tests that install it, besides Reactor's own rules: the starter's
 * scheduler threads must never block, as Reactor's parallel threads and event loops must not (a
 * continuation that sleeps or waits there would hold up every call it serves). Cancelling a
 * scheduled timer takes the scheduler queue's lock for a moment, as scheduling one does; Reactor
 * allows both for its own timers, and so do we for ours (a deadline or delay no longer needed).
 * A Lettuce client's shutdown, which the test fixtures do and the starter never does (it does not own
 * the application's clients), closes the client's executors from the event loop that finished
 * closing its connections, and Netty's graceful shutdown may wait a moment for an executor queue's
 * lock there (seen once, in a fresh-clone build, 2026-11-30).
 */
public class StarterBlockHoundIntegration implements BlockHoundIntegration {

	@Override
	public void applyTo(BlockHound.Builder builder) {
		builder.nonBlockingThreadPredicate((current) -> current
			.or((thread) -> thread.getName().startsWith(ContinuationScheduler.THREAD_PREFIX)));
		builder.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "remove");
		builder.allowBlockingCallsInside("io.lettuce.core.AbstractRedisClient", "closeClientResources");
	}

}
