package dev.resilience.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One daemon thread of a pool's own, made on the first task, that runs tasks in order and sleeps
 * in between, until shut down. Handing it a task takes no lock: a lock-free queue and an unpark.
 * A thread that must never wait (a Reactor thread, an event loop) may hand it work: an executor on
 * a {@code LinkedBlockingQueue} takes that queue's lock, and parks when another thread holds it.
 */
final class ParkingThread extends AbstractExecutorService {

	private static final System.Logger logger = System.getLogger(ParkingThread.class.getName());

	private final Queue<Runnable> tasks;

	private final AtomicBoolean started = new AtomicBoolean();

	private final Thread thread;

	private volatile boolean shutdown;

	ParkingThread(String name) {
		this(name, new ConcurrentLinkedQueue<>());
	}

	/** With the queue given, which must be lock-free and thread safe. */
	ParkingThread(String name, Queue<Runnable> tasks) {
		this.tasks = tasks;
		this.thread = new Thread(this::run, name);
		this.thread.setDaemon(true);
	}

	@Override
	public void execute(Runnable task) {
		if (this.shutdown) {
			throw new RejectedExecutionException(this.thread.getName() + " is shut down");
		}
		this.tasks.offer(task);
		if (this.shutdown && this.tasks.remove(task)) {
			// Shut down since the check above: the thread may have ended on an empty queue, so the
			// task is taken back and refused. One the thread took first, it runs.
			throw new RejectedExecutionException(this.thread.getName() + " is shut down");
		}
		if (!this.started.get() && this.started.compareAndSet(false, true)) {
			this.thread.start();
		}
		else {
			// Parks again at once if it was awake: the loop looks at the queue after each wake-up.
			LockSupport.unpark(this.thread);
		}
	}

	private void run() {
		while (true) {
			Runnable task = this.tasks.poll();
			if (task != null) {
				try {
					task.run();
				}
				catch (RuntimeException | Error ex) {
					// One task's failure must not end the thread that the next ones wait for, nor go unseen.
					logger.log(System.Logger.Level.WARNING, this.thread.getName() + ": a task failed", ex);
				}
			}
			else if (this.shutdown) {
				// A task given between the poll above and the shutdown was accepted: run it first.
				if (this.tasks.isEmpty()) {
					return;
				}
			}
			else {
				// An offer after the poll above unparks, so the permit makes this return at once.
				LockSupport.park(this);
			}
		}
	}

	/** Runs the tasks already given, then ends. */
	@Override
	public void shutdown() {
		this.shutdown = true;
		LockSupport.unpark(this.thread);
	}

	/** Ends after the task running now, which is interrupted; the tasks not run are returned. */
	@Override
	public List<Runnable> shutdownNow() {
		this.shutdown = true;
		List<Runnable> left = new ArrayList<>();
		for (Runnable task = this.tasks.poll(); task != null; task = this.tasks.poll()) {
			left.add(task);
		}
		this.thread.interrupt();
		return left;
	}

	@Override
	public boolean isShutdown() {
		return this.shutdown;
	}

	@Override
	public boolean isTerminated() {
		return this.shutdown && (!this.started.get() || !this.thread.isAlive());
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
		if (this.started.get()) {
			this.thread.join(unit.toMillis(timeout));
		}
		return isTerminated();
	}

}
