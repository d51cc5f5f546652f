package dev.resilience;

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
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} for exact time-dependent tests that runs nothing by itself:
 * the test runs the scheduled tasks on its own thread, in the order they are due (ties in the
 * order they were scheduled), moving a {@link ManualTicker} to each task's time first.
 * <ul>
 * <li>{@link #runAll()} and {@link #runNext()} run tasks whatever their time, moving the ticker;
 * {@link #runDue()} runs only those due by now, leaving the ticker alone; {@link #advance(Duration)}
 * moves the ticker forward, running each task as its time comes.</li>
 * <li>A cancelled task is dropped when its turn comes, without moving the ticker and without
 * running. {@link #pending()} leaves cancelled tasks out; {@link #queued()} shows them, for tests
 * that check a task was cancelled rather than run.</li>
 * <li>Tasks may be scheduled, cancelled and inspected from any thread.</li>
 * <li>A task that throws fails the test (an {@link AssertionError} from the method that ran it)
 * instead of hiding its failure in a future nobody reads.</li>
 * <li>After {@link #shutdown()} scheduling is refused with a {@link RejectedExecutionException}.</li>
 * <li>Only {@link #schedule(Runnable, long, TimeUnit)} and {@link #execute(Runnable)} (a task due
 * at once, through {@code submit} and {@code invokeAll} too) are supported: a lambda returning a
 * value passed to {@code schedule} is a {@code Callable}, which fails here to catch the mistake. A
 * negative delay counts as none.</li>
 * <li>{@link #delays()} records the delay asked of every {@code schedule}, and each {@code execute}
 * as {@link Duration#ZERO}, {@code execute} being {@code schedule} with no delay.</li>
 * </ul>
 * Where the schedulers this class replaces differed, the callers' assertions decide: the poll and
 * retry tests assert that a cancelled task stays queued until its turn, so they read
 * {@link #queued()}, while the pool and rate limit tests assert on {@link #pending()}, live tasks
 * only. One behaviour is an option: {@link #runDueTasksAtOnce()} runs a task due at once inside
 * {@code schedule} or {@code execute}, on the calling thread, before it returns, as another thread
 * of a real scheduler may (a poll test needs it); {@link #direct()} is a scheduler in that mode on a
 * ticker of its own, an executor that runs each task on the thread that submits it until shut down
 * (the pool tests' borrowing executor).
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private final ManualTicker ticker;

	private final PriorityQueue<Task> tasks = new PriorityQueue<>(
			Comparator.comparingLong((Task task) -> task.due).thenComparingLong((task) -> task.sequence));

	private final List<Duration> delays = new ArrayList<>();

	private long sequence;

	private volatile boolean shutdown;

	private volatile boolean runDueAtOnce;

	/**
	 * Creates a scheduler on the given ticker.
	 * @param ticker the ticker the tasks' times are read on, moved when they run
	 */
	public ManualScheduler(ManualTicker ticker) {
		this.ticker = ticker;
	}

	/**
	 * Returns an executor that runs each task on the thread that submits it, until shut down: a
	 * scheduler that {@linkplain #runDueTasksAtOnce() runs due tasks at once}, on a ticker of its own.
	 * @return the executor
	 */
	public static ManualScheduler direct() {
		return new ManualScheduler(new ManualTicker()).runDueTasksAtOnce();
	}

	/**
	 * From now on runs a task due at once inside {@code schedule} or {@code execute}, before it
	 * returns, as another thread of a real scheduler may.
	 * @return this scheduler
	 */
	public ManualScheduler runDueTasksAtOnce() {
		this.runDueAtOnce = true;
		return this;
	}

	/** Runs every task, including those the tasks schedule, in the order they are due. */
	public void runAll() {
		while (runNext()) {
			// next
		}
	}

	/**
	 * Runs the first task due that is not cancelled, moving the ticker to its time.
	 * @return whether there was one
	 */
	public boolean runNext() {
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
		moveTo(task.due);
		task.runAndCheck();
		return true;
	}

	/** Runs the tasks due by now, including those they schedule for now, not moving the ticker. */
	public void runDue() {
		Task task;
		while ((task = nextDue(this.ticker.read())) != null) {
			task.runAndCheck();
		}
	}

	/**
	 * Moves the ticker forward, running each task when its time comes.
	 * @param duration how far, not negative
	 */
	public void advance(Duration duration) {
		long until = this.ticker.read() + duration.toNanos();
		Task task;
		while ((task = nextDue(until)) != null) {
			moveTo(task.due);
			task.runAndCheck();
		}
		moveTo(until);
	}

	/**
	 * Returns the delay of every task scheduled so far, {@code execute} as {@link Duration#ZERO}, in
	 * the order they were scheduled.
	 * @return the delays
	 */
	public synchronized List<Duration> delays() {
		return List.copyOf(this.delays);
	}

	/**
	 * Returns the tasks waiting to run, cancelled ones left out, in the order they are due.
	 * @return the tasks
	 */
	public synchronized List<ScheduledFuture<?>> pending() {
		return this.tasks.stream().sorted(this.tasks.comparator()).filter((task) -> !task.isCancelled())
			.<ScheduledFuture<?>>map((task) -> task).toList();
	}

	/**
	 * Returns the tasks not run or dropped yet, cancelled ones included, in the order they are due.
	 * @return the tasks
	 */
	public synchronized List<ScheduledFuture<?>> queued() {
		return this.tasks.stream().sorted(this.tasks.comparator()).<ScheduledFuture<?>>map((task) -> task).toList();
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		return add(command, unit.toNanos(delay));
	}

	@Override
	public void execute(Runnable command) {
		add(command, 0);
	}

	private ScheduledFuture<?> add(Runnable command, long delayNanos) {
		Task task;
		synchronized (this) {
			if (this.shutdown) {
				throw new RejectedExecutionException("shut down");
			}
			this.delays.add(Duration.ofNanos(delayNanos));
			task = new Task(command, this.ticker.read() + Math.max(0, delayNanos), this.sequence++);
			if (!this.runDueAtOnce || delayNanos > 0) {
				this.tasks.add(task);
				return task;
			}
		}
		task.runAndCheck();
		return task;
	}

	private synchronized Task nextDue(long until) {
		while (true) {
			Task first = this.tasks.peek();
			if (first == null || first.due > until) {
				return null;
			}
			this.tasks.remove();
			if (!first.isCancelled()) {
				return first;
			}
		}
	}

	private void moveTo(long nanos) {
		if (nanos > this.ticker.read()) {
			this.ticker.set(nanos);
		}
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
