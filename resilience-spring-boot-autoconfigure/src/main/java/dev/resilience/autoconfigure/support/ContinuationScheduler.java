package dev.resilience.autoconfigure.support;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * Makes the scheduler that runs every timed continuation of asynchronous calls (a rate-limit
 * slot, a retry or poll delay, a pool deadline) and the invocations that follow them. The
 * auto-configuration registers one as the bean {@value #BEAN_NAME}; define a
 * {@link ScheduledExecutorService} bean of that name to replace it.
 */
public final class ContinuationScheduler {

	/** The name of the scheduler bean. */
	public static final String BEAN_NAME = "resilienceScheduler";

	/** The prefix of the names of its threads. */
	public static final String THREAD_PREFIX = "resilience-scheduler-";

	private ContinuationScheduler() {
	}

	/**
	 * Makes a scheduler with one thread per processor (continuations are short: they decide,
	 * invoke a method that returns at once, or complete a future), cancelled tasks removed at once
	 * so that deadlines which did not pass hold no memory.
	 * @param virtualThreads whether its threads are virtual (JDK 21+)
	 * @return the scheduler
	 */
	public static ScheduledExecutorService create(boolean virtualThreads) {
		ThreadFactory threads = virtualThreads ? new VirtualThreadTaskExecutor(THREAD_PREFIX).getVirtualThreadFactory()
				: daemonThreads();
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(
				Runtime.getRuntime().availableProcessors(), threads);
		scheduler.setRemoveOnCancelPolicy(true);
		return scheduler;
	}

	/**
	 * Returns the scheduler of advice made without an application context (as tests and
	 * programmatic use do), made on first use and shared.
	 * @return the shared scheduler
	 */
	static ScheduledExecutorService shared() {
		return Shared.INSTANCE;
	}

	private static ThreadFactory daemonThreads() {
		AtomicInteger count = new AtomicInteger();
		return (task) -> {
			Thread thread = new Thread(task, THREAD_PREFIX + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/** Holds the shared scheduler, made when first asked for. */
	private static final class Shared {

		static final ScheduledExecutorService INSTANCE = create(false);

	}

}
