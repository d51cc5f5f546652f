package dev.resilience.pool;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * The threads that run a pool's work. On Java 21 and later, one virtual thread per call (found at
 * run time: the starter is compiled for Java 17), so that work hung past its deadline costs no
 * platform thread. Before, a bounded set of daemon threads per pool: twice the pool's size, so
 * that as many calls as the pool holds can hang past their deadline while the replacements still
 * find threads; beyond that, work waits for a thread within its deadline. Those threads take their
 * work from a {@link HandOffQueue}, where a thread that has just finished spins briefly for the
 * next call before it sleeps.
 */
final class WorkerThreads {

	private static final @Nullable Method VIRTUAL_THREAD_PER_TASK = virtualThreadPerTask();

	private WorkerThreads() {
	}

	/**
	 * Returns the scheduler of the pools built without one: one daemon thread, made when first
	 * needed, shared by those pools and never shut down.
	 * @return the shared scheduler
	 */
	static ScheduledExecutorService sharedScheduler() {
		return SharedScheduler.INSTANCE;
	}

	/**
	 * Creates the executor of one pool.
	 * @param pool the pool's name, in the threads' names
	 * @param maxSize the pool's size
	 * @return the executor, to shut down when the pool closes
	 */
	static ExecutorService create(String pool, int maxSize) {
		Method virtual = VIRTUAL_THREAD_PER_TASK;
		return (virtual != null) ? virtual(virtual) : bounded(pool, 2 * maxSize);
	}

	/**
	 * Sets how many threads a bounded executor runs. The core may never exceed the most: lowered
	 * first, raised last.
	 * @param executor the executor
	 * @param threads its threads from now on
	 */
	static void resize(ThreadPoolExecutor executor, int threads) {
		executor.setCorePoolSize(Math.min(threads, executor.getCorePoolSize()));
		executor.setMaximumPoolSize(threads);
		executor.setCorePoolSize(threads);
	}

	private static ExecutorService bounded(String pool, int threads) {
		AtomicInteger count = new AtomicInteger();
		ThreadFactory factory = (task) -> {
			Thread thread = new Thread(task, "resilience-pool-" + pool + "-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
		ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new HandOffQueue(),
				factory);
		executor.allowCoreThreadTimeOut(true);
		return executor;
	}

	private static ExecutorService virtual(Method factory) {
		try {
			return (ExecutorService) factory.invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot create virtual threads", ex);
		}
	}

	private static @Nullable Method virtualThreadPerTask() {
		try {
			return Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

	/** Holds the shared scheduler, so that it is made only when a pool needs it. */
	private static final class SharedScheduler {

		static final ScheduledExecutorService INSTANCE = create();

		private static ScheduledExecutorService create() {
			ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, (task) -> {
				Thread thread = new Thread(task, "resilience-pool-scheduler");
				thread.setDaemon(true);
				return thread;
			});
			scheduler.setRemoveOnCancelPolicy(true);
			return scheduler;
		}

	}

}
