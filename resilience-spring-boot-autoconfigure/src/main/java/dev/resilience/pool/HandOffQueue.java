package dev.resilience.pool;

import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

/**
 * The task queue of a pool's worker threads: a worker that has just finished looks for its next
 * task for a few microseconds before it goes to sleep, so that a caller handing work over soon
 * after finds it awake and need not wait for the operating system to wake a thread.
 *
 * @see Spin
 */
final class HandOffQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {

	/*
	 * Chosen for speed. Waking a sleeping thread costs several microseconds (a futex wake and the
	 * scheduler's latency, 3 to 10 µs measured on 2 cores), and a plain queue pays it twice per
	 * call: the worker is woken, then the caller. A worker that spins for its next task takes it
	 * at the cost of a cache-line transfer. Spinning burns a core, so at most one worker of the
	 * queue spins at a time ({@code spinning}), for a bounded number of rounds that yield the core
	 * now and then (see Spin); the others sleep on the condition at once. An offer wakes a
	 * sleeper only when no worker spins ({@code sleeping} is read without the lock for that), and
	 * a worker that took a task while more wait wakes the next, as LinkedBlockingQueue does: the
	 * worker that stops spinning looks at the queue once more after saying so, and an offer reads
	 * {@code spinning} after enqueueing, so one of the two always sees the other.
	 */

	private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

	/** 1 while a worker spins for a task, else 0. */
	private final AtomicInteger spinning = new AtomicInteger();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition nonEmpty = this.lock.newCondition();

	/** The workers asleep on {@code nonEmpty} or about to be; written under the lock. */
	private volatile int sleeping;

	@Override
	public boolean offer(Runnable task) {
		this.tasks.offer(task);
		wakeOne();
		return true;
	}

	@Override
	public void put(Runnable task) {
		offer(task);
	}

	@Override
	public boolean offer(Runnable task, long timeout, TimeUnit unit) {
		return offer(task);
	}

	@Override
	public @Nullable Runnable poll() {
		return this.tasks.poll();
	}

	@Override
	public @Nullable Runnable peek() {
		return this.tasks.peek();
	}

	@Override
	public Runnable take() throws InterruptedException {
		Runnable task = spin();
		return (task != null) ? task : sleep(Long.MAX_VALUE, false);
	}

	@Override
	public @Nullable Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
		Runnable task = spin();
		return (task != null) ? task : sleep(unit.toNanos(timeout), true);
	}

	/** Looks for a task for a while if no other worker does, else once. */
	private @Nullable Runnable spin() {
		if (!this.spinning.compareAndSet(0, 1)) {
			return took(this.tasks.poll());
		}
		Runnable task = this.tasks.poll();
		for (int round = 0; task == null && round < Spin.ROUNDS; round++) {
			Spin.pause(round);
			task = this.tasks.poll();
		}
		this.spinning.set(0);
		return took((task != null) ? task : this.tasks.poll());
	}

	private @Nullable Runnable sleep(long nanos, boolean timed) throws InterruptedException {
		Runnable task;
		long left = nanos;
		this.lock.lockInterruptibly();
		try {
			this.sleeping++;
			try {
				while ((task = this.tasks.poll()) == null) {
					if (!timed) {
						this.nonEmpty.await();
					}
					else if (left <= 0) {
						return null;
					}
					else {
						left = this.nonEmpty.awaitNanos(left);
					}
				}
			}
			finally {
				this.sleeping--;
			}
		}
		finally {
			this.lock.unlock();
		}
		return took(task);
	}

	/** A worker took a task: if more wait, it wakes another worker for them. */
	private @Nullable Runnable took(@Nullable Runnable task) {
		if (task != null && !this.tasks.isEmpty()) {
			wakeOne();
		}
		return task;
	}

	/** Wakes a sleeping worker, unless one spins and will find the task itself. */
	private void wakeOne() {
		if (this.spinning.get() == 0 && this.sleeping > 0) {
			this.lock.lock();
			try {
				this.nonEmpty.signal();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	@Override
	public int remainingCapacity() {
		return Integer.MAX_VALUE;
	}

	@Override
	public int drainTo(Collection<? super Runnable> target) {
		return drainTo(target, Integer.MAX_VALUE);
	}

	@Override
	public int drainTo(Collection<? super Runnable> target, int maxElements) {
		int drained = 0;
		Runnable task;
		while (drained < maxElements && (task = this.tasks.poll()) != null) {
			target.add(task);
			drained++;
		}
		return drained;
	}

	@Override
	public boolean remove(Object task) {
		return this.tasks.remove(task);
	}

	@Override
	public Iterator<Runnable> iterator() {
		return this.tasks.iterator();
	}

	@Override
	public int size() {
		return this.tasks.size();
	}

	@Override
	public boolean isEmpty() {
		return this.tasks.isEmpty();
	}

}
