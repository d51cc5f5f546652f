package dev.resilience.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.resilience.ManualTicker;

/**
 * A {@link ScheduledExecutorService} that runs nothing by itself: {@link #runAll()} runs the
 * scheduled tasks in the order they are due, on the calling thread, moving a {@link ManualTicker}
 * to each task's time first. A cancelled task is dropped without moving the ticker. Tasks may be
 * scheduled from any thread. Only {@link #schedule(Runnable, long, TimeUnit)} and
 * {@link #execute(Runnable)} (due at once) are supported: a lambda returning a value passed to
 * {@code schedule} is a {@code Callable}, which fails here to catch the mistake.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private final ManualTicker ticker;

	private final PriorityQueue<Task> tasks = new PriorityQueue<>(
			Comparator.comparingLong((Task task) -> task.due).thenComparingLong((task) -> task.sequence));

	private final List<Duration> delays = new ArrayList<>();

	private long sequence;

	ManualScheduler(ManualTicker ticker) {
		this.ticker = ticker;
	}

	/** Runs every task, including those the tasks schedule, in the order they are due. */
	void runAll() {
		while (runNext()) {
			// next
		}
	}

	/**
	 * Runs the first task due that is not cancelled, moving the ticker to its time.
	 * @return whether there was one
	 */
	boolean runNext() {
		Task task;
		synchronized (this) {
			do {
				task = this.tasks.poll();
			}
			while (task != null && task.isCancelled());
		}
		if (task == null) {
			return false;
		}
		if (task.due > this.ticker.read()) {
			this.ticker.set(task.due);
		}
		task.runAndCheck();
		return true;
	}

	/** Runs the tasks due by now (not moving the ticker), including those they schedule for now. */
	void runDue() {
		while (true) {
			Task task;
			synchronized (this) {
				task = this.tasks.peek();
				if (task == null || (!task.isCancelled() && task.due > this.ticker.read())) {
					return;
				}
				this.tasks.remove();
			}
			task.runAndCheck();
		}
	}

	/** The delay of every task scheduled with a delay (not {@link #execute}), in order. */
	synchronized List<Duration> delays() {
		return List.copyOf(this.delays);
	}

	/** How many tasks wait to run, cancelled ones left out. */
	synchronized long pending() {
		return this.tasks.stream().filter((task) -> !task.isCancelled()).count();
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		synchronized (this) {
			this.delays.add(Duration.ofNanos(unit.toNanos(delay)));
		}
		return add(command, unit.toNanos(delay));
	}

	private synchronized Task add(Runnable command, long delayNanos) {
		Task task = new Task(command, this.ticker.read() + Math.max(0, delayNanos), this.sequence++);
		this.tasks.add(task);
		return task;
	}

	@Override
	public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		throw new UnsupportedOperationException("schedule a Runnable");
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
		add(command, 0);
	}

	@Override
	public void shutdown() {
	}

	@Override
	public List<Runnable> shutdownNow() {
		return List.of();
	}

	@Override
	public boolean isShutdown() {
		return false;
	}

	@Override
	public boolean isTerminated() {
		return false;
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return false;
	}

	private final class Task extends FutureTask<Void> implements ScheduledFuture<Void> {

		private final long due;

		private final long sequence;

		Task(Runnable command, long due, long sequence) {
			super(command, null);
			this.due = due;
			this.sequence = sequence;
		}

		/** Runs the task; a task that throws fails the test instead of hiding in its future. */
		void runAndCheck() {
			run();
			if (isDone() && !isCancelled()) {
				try {
					get();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				catch (ExecutionException ex) {
					throw new AssertionError("a scheduled task failed", ex.getCause());
				}
			}
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
