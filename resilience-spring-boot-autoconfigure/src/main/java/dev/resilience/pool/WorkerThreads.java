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
 * platform thread; they are named {@code resilience-pool-<pool>-<n>} as the platform threads are,
 * so that a thread dump or a log line shows whose work it is. Before, a bounded set of daemon threads per pool: twice the pool's size, so
 * that as many calls as the pool holds can hang past their deadline while the replacements still
 * find threads; beyond that, work waits for a thread within its deadline. Those threads take their
 * work from a {@link HandOffQueue}, where a thread that has just finished spins briefly for the
 * next call before it sleeps.
 */
final class WorkerThreads {

	private static final @Nullable VirtualThreads VIRTUAL_THREADS = VirtualThreads.find();

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
		VirtualThreads virtual = VIRTUAL_THREADS;
		return (virtual != null) ? virtual.executor("resilience-pool-" + pool + "-") : bounded(pool, 2 * maxSize);
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

	/**
	 * The JDK 21 methods that make an executor of named virtual threads:
	 * {@code Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(prefix, 1).factory())}.
	 */
	private record VirtualThreads(Method ofVirtual, Method name, Method factory, Method perTask) {

		static @Nullable VirtualThreads find() {
			try {
				Class<?> builder = Class.forName("java.lang.Thread$Builder");
				return new VirtualThreads(Thread.class.getMethod("ofVirtual"),
						builder.getMethod("name", String.class, long.class), builder.getMethod("factory"),
						Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class));
			}
			catch (ClassNotFoundException | NoSuchMethodException ex) {
				return null;
			}
		}

		ExecutorService executor(String prefix) {
			try {
				Object named = this.name.invoke(this.ofVirtual.invoke(null), prefix, 1L);
				return (ExecutorService) this.perTask.invoke(null, this.factory.invoke(named));
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException("Cannot create virtual threads", ex);
			}
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
