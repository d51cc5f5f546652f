package dev.resilience.autoconfigure.support;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells BlockHound, in tests that install it, that the starter's scheduler threads must never
 * block, as Reactor's parallel threads and event loops must not: a continuation that sleeps or
 * waits there would hold up every call it serves.
 */
public class SchedulerThreadsAreNonBlocking implements BlockHoundIntegration {

	@Override
	public void applyTo(BlockHound.Builder builder) {
		builder.nonBlockingThreadPredicate((current) -> current
			.or((thread) -> thread.getName().startsWith(ContinuationScheduler.THREAD_PREFIX)));
	}

}
