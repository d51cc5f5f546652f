package dev.resilience.pool;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The threads that make connections for blocking checkouts. Commons Pool calls the factory on the
 * thread that borrows; a factory that hangs (a connect that never answers) would hold that caller
 * past its deadline. So the connection is made here, one thread per creation up to the pool's
 * size, and the caller waits for it only until its deadline. A connection made after its caller
 * stopped waiting is not lost: it goes to the first caller still waiting for a creation (whose own
 * creation, once it ends, goes on the same way), else into the pool if it has room for it, and is
 * closed otherwise. Only creations come here, never waits for a connection given back: those stay
 * in Commons Pool, on the caller's thread, where they cost no thread of ours.
 *
 * @param <T> the connection type
 */
final class CreatingThreads<T> {

	private final ConnectionFactory<T> factory;

	private final ExecutorService threads;

	/** Puts a connection of {@link #unclaimed} in the pool, if it has room; then signals the pool. */
	private final Runnable addUnclaimed;

	private final Supplier<IllegalStateException> closed;

	/**
	 * Creations a caller waits for, oldest first: served by a connection made too late for its own
	 * caller, and failed at once when the pool closes. At most the pool's size, as Commons Pool
	 * counts each among the connections of the pool while its caller waits.
	 */
	private final Queue<Creation> waitedFor = new ConcurrentLinkedQueue<>();

	/** Connections made after their caller stopped waiting, taken by the pool's next creation. */
	private final Queue<Handle<T>> unclaimed = new ConcurrentLinkedQueue<>();

	CreatingThreads(ExecutorService threads, ConnectionFactory<T> factory, Runnable addUnclaimed,
			Supplier<IllegalStateException> closed) {
		this.threads = threads;
		this.factory = factory;
		this.addUnclaimed = addUnclaimed;
		this.closed = closed;
	}

	/**
	 * Creates the threads of one pool: as many as its size, daemons, idle ones ending after 30 s.
	 * @param pool the pool's name, in the threads' names
	 * @param maxSize the pool's size
	 * @return the threads, to hand to the constructor
	 */
	static ExecutorService threads(String pool, int maxSize) {
		AtomicInteger count = new AtomicInteger();
		ThreadPoolExecutor threads = new ThreadPoolExecutor(maxSize, maxSize, 30, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), (task) -> {
					Thread thread = new Thread(task, "resilience-pool-" + pool + "-creator-" + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		threads.allowCoreThreadTimeOut(true);
		return threads;
	}

	/** Makes a connection on this thread, which is one of the pool's own. */
	Handle<T> makeHere() throws Exception {
		return new Handle<>(this.factory.create(), this.factory);
	}

	/**
	 * Makes a connection for no caller in particular (a replacement, or one for the asynchronous
	 * checkouts): it goes as a connection made too late for its caller does. Made outside Commons
	 * Pool's count of creations in progress: a borrower that finds the pool full waits for those to
	 * end before it looks for a connection given back, so a factory that hangs there would keep it
	 * from the connections given back until its deadline.
	 * @param failed told the factory's exception
	 * @param ended told when the creation ended, made or not, or was refused as the pool closed
	 */
	void replenish(Consumer<Throwable> failed, Runnable ended) {
		boolean handed = false;
		try {
			this.threads.execute(() -> {
				try {
					Handle<T> handle;
					try {
						handle = makeHere();
					}
					catch (Exception | Error ex) {
						failed.accept(ex);
						return;
					}
					adopt(handle);
				}
				finally {
					ended.run();
				}
			});
			handed = true;
		}
		catch (RejectedExecutionException ex) {
			// Closed: nothing to make.
		}
		finally {
			if (!handed) {
				// Refused, or no thread could be started: it took no room.
				ended.run();
			}
		}
	}

	/**
	 * Makes a connection on a creating thread, waiting for it at most the time given.
	 * @param nanos the time the caller has left, positive
	 * @return the connection
	 * @throws NotMade if the connection was not made in time
	 * @throws InterruptedException if the caller was interrupted while it waited
	 * @throws Exception the factory's exception; {@code IllegalStateException} if the pool closed
	 */
	Handle<T> make(long nanos) throws Exception {
		Creation creation = new Creation();
		this.waitedFor.add(creation);
		try {
			this.threads.execute(creation);
			return creation.result.get(nanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			throw this.closed.get();
		}
		catch (ExecutionException ex) {
			throw rethrown(ex.getCause());
		}
		catch (TimeoutException | InterruptedException ex) {
			if (!creation.result.cancel(false)) {
				// Ended at this very moment: its outcome stands, and an interrupt stays to be seen.
				if (ex instanceof InterruptedException) {
					Thread.currentThread().interrupt();
				}
				return outcome(creation);
			}
			// Not started yet: its place in the queue goes, so callers that time out leave nothing.
			remove(creation);
			throw (ex instanceof InterruptedException interrupted) ? interrupted : NotMade.INSTANCE;
		}
		finally {
			this.waitedFor.remove(creation);
		}
	}

	private Handle<T> outcome(Creation creation) throws Exception {
		try {
			return creation.result.getNow(null);
		}
		catch (RuntimeException ex) {
			throw rethrown(ex.getCause());
		}
	}

	/** A connection made for a caller that stopped waiting, or {@code null}. */
	@Nullable Handle<T> takeUnclaimed() {
		return this.unclaimed.poll();
	}

	private void remove(Creation creation) {
		if (this.threads instanceof ThreadPoolExecutor executor) {
			executor.remove(creation);
		}
	}

	/** Resizes the threads with the pool. */
	void resize(int maxSize) {
		if (this.threads instanceof ThreadPoolExecutor executor) {
			WorkerThreads.resize(executor, maxSize);
		}
	}

	/** Fails the creations callers wait for; connections made later are closed as they come. */
	void close() {
		this.threads.shutdownNow();
		IllegalStateException closed = this.closed.get();
		for (Creation creation : this.waitedFor) {
			creation.result.completeExceptionally(closed);
		}
		for (Handle<T> handle = this.unclaimed.poll(); handle != null; handle = this.unclaimed.poll()) {
			handle.release();
		}
	}

	/**
	 * A connection made too late for its caller: to the first caller waiting for a creation, else
	 * into the pool if it has room, else closed.
	 */
	private void adopt(Handle<T> handle) {
		for (Creation waiting : this.waitedFor) {
			if (waiting.result.complete(handle)) {
				// Its own creation, if it has not started, never will.
				remove(waiting);
				return;
			}
		}
		this.unclaimed.add(handle);
		try {
			this.addUnclaimed.run();
		}
		finally {
			// Still here: the pool had no room for it, or closed (another creation may have taken it).
			if (this.unclaimed.remove(handle)) {
				handle.release();
			}
		}
	}

	private static Exception rethrown(Throwable failure) {
		if (failure instanceof Error error) {
			throw error;
		}
		return (Exception) failure;
	}

	/** One creation; its result is completed by the creating thread, or cancelled by its caller. */
	private final class Creation implements Runnable {

		final CompletableFuture<Handle<T>> result = new CompletableFuture<>();

		@Override
		public void run() {
			if (this.result.isDone()) {
				return; // the caller stopped waiting before a thread was free
			}
			Handle<T> handle;
			try {
				handle = makeHere();
			}
			catch (Throwable ex) {
				this.result.completeExceptionally(ex);
				return;
			}
			if (!this.result.complete(handle)) {
				adopt(handle);
			}
		}

	}

	/**
	 * No connection was made for the thread that asked: its deadline came first, or it is a thread
	 * of the pool's that waits for no creation.
	 */
	static final class NotMade extends Exception {

		static final NotMade INSTANCE = new NotMade();

		private NotMade() {
			super("No connection was made in time", null, false, false);
		}

	}

}
