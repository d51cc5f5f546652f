package dev.resilience.poll;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.resilience.ManualTicker;

/**
 * A {@link ScheduledExecutorService} that runs nothing by itself: {@link #runAll()} runs the
 * scheduled tasks in the order they are due, on the calling thread, moving a {@link ManualTicker}
 * to each task's time first. Only {@link #schedule(Runnable, long, TimeUnit)} is supported.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private final ManualTicker ticker;

	private final PriorityQueue<Task> tasks = new PriorityQueue<>(
			Comparator.comparingLong((Task task) -> task.due).thenComparingLong((task) -> task.sequence));

	private final List<Duration> delays = new ArrayList<>();

	private long sequence;

	private boolean shutdown;

	/** Whether a task due at once runs inside {@code schedule}, before it returns. */
	private boolean runDueAtOnce;

	public ManualScheduler(ManualTicker ticker) {
		this.ticker = ticker;
	}

	/** Runs every task, including those the tasks schedule, in the order they are due. */
	public void runAll() {
		while (!this.tasks.isEmpty()) {
			runNext();
		}
	}

	/** Runs the task due first, moving the ticker to its time. */
	public void runNext() {
		Task task = this.tasks.remove();
		if (task.due > this.ticker.read()) {
			this.ticker.set(task.due);
		}
		task.run();
	}

	/**
	 * From now on runs a task due at once inside {@code schedule}, before it returns, as another
	 * thread of a real scheduler may.
	 */
	public void runDueTasksAtOnce() {
		this.runDueAtOnce = true;
	}

	/** The delay of every scheduled task, in the order they were scheduled. */
	public List<Duration> delays() {
		return List.copyOf(this.delays);
	}

	/** The tasks scheduled and not run yet, cancelled ones included. */
	public List<ScheduledFuture<?>> pending() {
		return List.copyOf(this.tasks);
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		if (this.shutdown) {
			throw new RejectedExecutionException("shut down");
		}
		this.delays.add(Duration.ofNanos(unit.toNanos(delay)));
		Task task = new Task(command, this.ticker.read() + unit.toNanos(delay), this.sequence++);
		if (this.runDueAtOnce && delay <= 0) {
			task.run();
			return task;
		}
		this.tasks.add(task);
		return task;
	}

	@Override
	public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		throw new UnsupportedOperationException();
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
		throw new UnsupportedOperationException();
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		throw new UnsupportedOperationException();
	}

	@Override
	public void execute(Runnable command) {
		schedule(command, 0, TimeUnit.NANOSECONDS);
	}

	@Override
	public void shutdown() {
		this.shutdown = true;
	}

	@Override
	public List<Runnable> shutdownNow() {
		this.shutdown = true;
		return List.of();
	}

	@Override
	public boolean isShutdown() {
		return this.shutdown;
	}

	@Override
	public boolean isTerminated() {
		return this.shutdown && this.tasks.isEmpty();
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return isTerminated();
	}

	private final class Task extends FutureTask<Void> implements ScheduledFuture<Void> {

		private final long due;

		private final long sequence;

		Task(Runnable command, long due, long sequence) {
			super(command, null);
			this.due = due;
			this.sequence = sequence;
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return unit.convert(this.due - ManualScheduler.this.ticker.read(), TimeUnit.NANOSECONDS);
		}

		@Override
		public int compareTo(Delayed other) {
			return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
		}

	}

}
