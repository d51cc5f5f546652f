package dev.resilience.pool;

import java.time.Duration;
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
 * A {@link ScheduledExecutorService} that runs nothing by itself: {@link #runDue()} runs the tasks
 * due now and {@link #advance(Duration)} moves a {@link ManualTicker} forward, running each task
 * as its time comes, all on the calling thread. Tasks may be scheduled from any thread. Only
 * {@link #schedule(Runnable, long, TimeUnit)} and {@link #execute(Runnable)} are supported.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private final ManualTicker ticker;

	private final PriorityQueue<Task> tasks = new PriorityQueue<>(
			Comparator.comparingLong((Task task) -> task.due).thenComparingLong((task) -> task.sequence));

	private long sequence;

	private volatile boolean shutdown;

	ManualScheduler(ManualTicker ticker) {
		this.ticker = ticker;
	}

	/** Runs the tasks due now, including those they schedule due now. */
	void runDue() {
		Task task;
		while ((task = nextDue(this.ticker.read())) != null) {
			task.run();
		}
	}

	/** Moves the ticker forward, running each task when its time comes. */
	void advance(Duration duration) {
		long until = this.ticker.read() + duration.toNanos();
		Task task;
		while ((task = nextDue(until)) != null) {
			if (task.due > this.ticker.read()) {
				this.ticker.set(task.due);
			}
			task.run();
		}
		this.ticker.set(until);
	}

	/** The tasks not run yet, cancelled ones left out. */
	synchronized List<ScheduledFuture<?>> pending() {
		return this.tasks.stream().filter((task) -> !task.isCancelled()).<ScheduledFuture<?>>map((task) -> task).toList();
	}

	private synchronized Task nextDue(long until) {
		Task first = this.tasks.peek();
		if (first == null || first.due > until) {
			return null;
		}
		return this.tasks.remove();
	}

	@Override
	public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		if (this.shutdown) {
			throw new RejectedExecutionException("shut down");
		}
		Task task = new Task(command, this.ticker.read() + unit.toNanos(Math.max(delay, 0)), this.sequence++);
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
	public synchronized boolean isTerminated() {
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
