package dev.resilience.autoconfigure.support;

import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.core.task.VirtualThreadTaskExecutor;

import dev.resilience.internal.RefusableTask;

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
	 * so that deadlines which did not pass hold no memory. {@code shutdownNow()} tells each
	 * {@link RefusableTask} it drops (a retry's or a poll's next attempt), so that the call waiting
	 * for it fails instead of waiting for good.
	 * @param virtualThreads whether its threads are virtual (JDK 21+)
	 * @return the scheduler
	 */
	public static ScheduledExecutorService create(boolean virtualThreads) {
		ThreadFactory threads = virtualThreads ? new VirtualThreadTaskExecutor(THREAD_PREFIX).getVirtualThreadFactory()
				: daemonThreads();
		Scheduler scheduler = new Scheduler(Runtime.getRuntime().availableProcessors(), threads);
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

	/** The scheduler, which tells the refusable tasks it drops at {@code shutdownNow()}. */
	private static final class Scheduler extends ScheduledThreadPoolExecutor {

		Scheduler(int threads, ThreadFactory threadFactory) {
			super(threads, threadFactory);
		}

		@Override
		protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
			return (runnable instanceof RefusableTask refusable) ? new Refusing<>(task, refusable) : task;
		}

		@Override
		public List<Runnable> shutdownNow() {
			List<Runnable> dropped = super.shutdownNow();
			for (Runnable task : dropped) {
				if (task instanceof Refusing<?> refusing && !refusing.isCancelled()) {
					refusing.refusable.refuse(new RejectedExecutionException(BEAN_NAME + " was shut down"));
				}
			}
			return dropped;
		}

		/** A scheduled task that remembers its refusable task; everything else is the task's own. */
		private final class Refusing<V> implements RunnableScheduledFuture<V> {

			private final RunnableScheduledFuture<V> task;

			final RefusableTask refusable;

			Refusing(RunnableScheduledFuture<V> task, RefusableTask refusable) {
				this.task = task;
				this.refusable = refusable;
			}

			@Override
			public void run() {
				this.task.run();
			}

			@Override
			public boolean cancel(boolean mayInterruptIfRunning) {
				boolean cancelled = this.task.cancel(mayInterruptIfRunning);
				// The queue holds this wrapper, which the task's own removal on cancel cannot find.
				if (cancelled && getRemoveOnCancelPolicy()) {
					remove(this);
				}
				return cancelled;
			}

			@Override
			public boolean isCancelled() {
				return this.task.isCancelled();
			}

			@Override
			public boolean isDone() {
				return this.task.isDone();
			}

			@Override
			public V get() throws InterruptedException, ExecutionException {
				return this.task.get();
			}

			@Override
			public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
				return this.task.get(timeout, unit);
			}

			@Override
			public long getDelay(TimeUnit unit) {
				return this.task.getDelay(unit);
			}

			@Override
			public int compareTo(Delayed other) {
				return this.task.compareTo((other instanceof Refusing<?> refusing) ? refusing.task : other);
			}

			@Override
			public boolean isPeriodic() {
				return this.task.isPeriodic();
			}

		}

	}

	/** Holds the shared scheduler, made when first asked for. */
	private static final class Shared {

		static final ScheduledExecutorService INSTANCE = create(false);

	}

}
