package dev.resilience.pool;

import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;
import dev.resilience.internal.Durations;
import dev.resilience.internal.Listeners;
import dev.resilience.internal.ScheduledAttempts;
import dev.resilience.pool.ConnectionPoolListener.CheckoutOutcome;
import dev.resilience.pool.ConnectionPoolListener.OperationOutcome;

/**
 * The {@link ConnectionPool} on Apache Commons Pool 2. A call reads the clock once to fix its
 * deadline; it borrows with the time left, then hands the work to a worker thread and waits for
 * the rest. Who gives the connection back is decided by one compare-and-set on the call's state,
 * so a call that finishes at the very deadline is neither returned twice nor lost:
 * <ul>
 * <li>the work finished first: the worker returns the connection, and the caller gets the outcome
 * unless its deadline passed meanwhile;
 * <li>the deadline came before the work started: the caller returns the connection unused;
 * <li>the deadline came while the work runs: the caller interrupts it and has the connection
 * invalidated, which frees its place in the pool; the connection is closed when the work lets go
 * of it ({@link Handle}).
 * </ul>
 * Commons Pool makes a replacement as part of invalidating (so that a caller already waiting is
 * served), which calls the factory; a timed-out caller must not wait for that, so invalidations
 * at the deadline run on a thread of their own, made when needed. Likewise a connection that a
 * blocking checkout must make: Commons Pool calls the factory on the thread that borrows, so the
 * factory runs on a {@link CreatingThreads creating thread} and the caller waits for it only until
 * its deadline. Replacements, and connections for asynchronous checkouts, are made on a creating
 * thread too, outside Commons Pool ({@link #replenish}), and nobody waits for them: a factory that
 * hangs holds up no invalidation, and no connection given back.
 * <p>
 * <b>Asynchronous calls</b> ({@link #checkoutAsync}, and {@link #withConnectionAsync} on it) wait
 * without a thread, in a queue of {@link DeadlineLease}s beside Commons Pool's own waiters. Every
 * event that can make a connection available (a connection given back or invalidated, a creation
 * ended, a checkout queued) signals; a signal starts one drain on the pool's borrowing thread
 * unless one runs, and a drain that runs is told to go round again, so no signal is lost (the
 * queued checkout signals after queueing, the one giving back after giving back: the later of the
 * two sees the other). A drain borrows idle connections while checkouts wait, and offers each to
 * the first checkout still waiting; when none is idle, it has connections made for the checkouts
 * that the creations in progress will not serve, if the pool has room. Whichever of that
 * hand-off, the checkout's deadline or the caller cancelling is first decides, by the lease's
 * compare-and-set, and the loser gives the connection on to the next checkout or back. Blocking
 * and asynchronous callers share the connections: a connection given back wakes a blocked caller
 * and signals a drain, and the first to take it has it.
 * <p>
 * Why a thread to borrow, though it never waits for a connection: Commons Pool's borrow takes a
 * lock, and may wait a moment for a creation of another thread to end (a millisecond at most,
 * here); neither may happen on a caller's or the scheduler's thread, which may be an event loop.
 * Before borrowing, the drain reads whether a connection is idle, and when none is, the usual case
 * while checkouts wait, does not call Commons Pool at all. The other way, Commons Pool's own
 * timed borrow on a dedicated executor, holds a thread for every waiting checkout. Measured with
 * a timed loop on a permit pool of 4, 64 checkouts in flight, each holding its permit for one hop
 * of a two-thread scheduler, 50,000 checkouts after two warm-up rounds, on 2 cores: the queue
 * about 51,000 checkouts a second with its one borrowing thread; the executor about 50,000 with
 * 64 threads, or 48,000 with 8 (the checkouts beyond 8 then wait in the executor's queue behind
 * threads that wait themselves). The same speed for one thread instead of one per waiting
 * checkout: the queue it is.
 *
 * @param <T> the connection type
 */
final class DeadlinePool<T> implements ConnectionPool<T> {

	private static final System.Logger logger = System.getLogger(DeadlinePool.class.getName());

	private static final Duration EVICTION_PERIOD_CAP = Duration.ofSeconds(30);

	private static final Duration EVICTION_PERIOD_FLOOR = Duration.ofSeconds(1);

	/**
	 * How long the borrowing thread and the pool's top-ups wait for room at most: a wait, however
	 * short, where Commons Pool, given none, would spin in create() for as long as another
	 * thread's creation may fill the pool.
	 */
	private static final Duration ROOM_WAIT = Duration.ofMillis(1);

	private final String name;

	private final ConnectionFactory<T> factory;

	/** Replaced whole at run time ({@link #updateSettings}); Commons Pool's own limits follow. */
	private volatile ConnectionPoolSettings settings;

	/**
	 * Whether the pool was made smaller while more connections may be out than its new size; only
	 * then does a give-back count them (Commons Pool would keep a returned one idle and hand it out).
	 */
	private volatile boolean shrunk;

	private final Ticker ticker;

	private final List<ConnectionPoolListener> listeners;

	private final ContextSnapshotFactory contextSnapshots;

	private final GenericObjectPool<Handle<T>> pool;

	private final ExecutorService workers;

	/**
	 * Where connections are made: for blocking checkouts, which wait for them until their deadline,
	 * and for nobody in particular ({@link #replenish}).
	 */
	private final CreatingThreads<T> creatingThreads;

	/**
	 * Until when ({@code System.nanoTime}) this thread waits for a connection Commons Pool has made
	 * for it: the deadline of a blocking checkout; now on the replacing thread and when a creating
	 * thread puts a connection made too late in the pool, which wait for none; not set on the
	 * pool's other threads, which make connections themselves.
	 */
	private final ThreadLocal<@Nullable Long> creationDeadline = new ThreadLocal<>();

	private final ExecutorService replacer;

	private final ScheduledExecutorService scheduler;

	/**
	 * The thread that borrows for asynchronous checkouts. Signalled from any thread, one that must
	 * never wait among them, so handing it a drain takes no lock (ParkingThread): an executor's
	 * queue lock, contended, would park there, and BlockHound, failing the hand-off midway, would
	 * leave a drain counted as asked for that never runs, and no asynchronous checkout served again.
	 * The replacing thread likewise, handed invalidations by the holder, the deadline or a
	 * cancellation: one lost would lose its connection's place in the pool.
	 */
	private final ExecutorService borrower;

	/*
	 * Who gives back the connection of an asynchronous call: this one thread of the pool's own,
	 * never the thread that ends the work. That thread is often not ours (a Reactor thread that
	 * completed or cancelled the publisher, the scheduler, an event loop), and Commons Pool's
	 * returnObject takes its deque's lock and may park there; parking is not allowed on such a
	 * thread (BlockHound fails it midway, leaving the connection neither idle nor active, a place
	 * lost for good). Not the borrowing thread, which may be making a connection for a while, nor
	 * the replacing one, which makes replacements and closes connections: a give-back is only a
	 * short lock and a signal, so no outcome waits behind a factory. Handing it the give-back takes
	 * no lock either (ParkingThread). The outcome goes on to the caller only after the give-back,
	 * so a caller that sees it finds the connection back.
	 */
	private final ExecutorService returner;

	private final AtomicInteger abandoned = new AtomicInteger();

	/** The asynchronous checkouts in order, some of them no longer waiting (removed lazily). */
	private final Queue<DeadlineLease<T>> waiters = new ConcurrentLinkedQueue<>();

	/** The asynchronous checkouts waiting. */
	private final AtomicInteger waiting = new AtomicInteger();

	/** Signals not yet served by a drain; a drain runs while it is positive. */
	private final AtomicInteger drainRequests = new AtomicInteger();

	/** Connections being made by the factory now, for Commons Pool. */
	private final AtomicInteger creating = new AtomicInteger();

	/** Connections being made by the factory now, outside Commons Pool ({@link #replenish}). */
	private final AtomicInteger replenishing = new AtomicInteger();

	/** Of those, the ones asked for by the asynchronous checkouts waiting ({@link #requestCreations}). */
	private final AtomicInteger requested = new AtomicInteger();

	DeadlinePool(String name, ConnectionFactory<T> factory, ConnectionPoolSettings settings, Ticker ticker,
			List<ConnectionPoolListener> listeners, ContextSnapshotFactory contextSnapshots,
			ScheduledExecutorService scheduler) {
		this(name, factory, settings, ticker, listeners, contextSnapshots, WorkerThreads.create(name, settings.maxSize()),
				scheduler, new ParkingThread("resilience-pool-" + name + "-borrower"),
				new ParkingThread("resilience-pool-" + name + "-returner"));
	}

	DeadlinePool(String name, ConnectionFactory<T> factory, ConnectionPoolSettings settings, Ticker ticker,
			List<ConnectionPoolListener> listeners, ContextSnapshotFactory contextSnapshots, ExecutorService workers) {
		this(name, factory, settings, ticker, listeners, contextSnapshots, workers, WorkerThreads.sharedScheduler(),
				new ParkingThread("resilience-pool-" + name + "-borrower"),
				new ParkingThread("resilience-pool-" + name + "-returner"));
	}

	DeadlinePool(String name, ConnectionFactory<T> factory, ConnectionPoolSettings settings, Ticker ticker,
			List<ConnectionPoolListener> listeners, ContextSnapshotFactory contextSnapshots, ExecutorService workers,
			ScheduledExecutorService scheduler, ExecutorService borrower, ExecutorService returner) {
		this(name, factory, settings, ticker, listeners, contextSnapshots, workers, scheduler, borrower, returner,
				CreatingThreads.threads(name, settings.maxSize()));
	}

	DeadlinePool(String name, ConnectionFactory<T> factory, ConnectionPoolSettings settings, Ticker ticker,
			List<ConnectionPoolListener> listeners, ContextSnapshotFactory contextSnapshots, ExecutorService workers,
			ScheduledExecutorService scheduler, ExecutorService borrower, ExecutorService returner,
			ExecutorService creators) {
		this.name = name;
		this.factory = factory;
		this.settings = settings;
		this.ticker = ticker;
		this.listeners = listeners;
		this.contextSnapshots = contextSnapshots;
		this.creatingThreads = new CreatingThreads<>(creators, factory, this::addUnclaimed, this::closed);
		this.pool = new GenericObjectPool<>(
				new HandleFactory<>(this.creatingThreads, this.creationDeadline, this::creating, this::created),
				config(settings));
		this.workers = workers;
		this.replacer = new ParkingThread("resilience-pool-" + name + "-replacer");
		this.scheduler = scheduler;
		this.borrower = borrower;
		this.returner = returner;
		try {
			this.pool.preparePool();
		}
		catch (Exception ex) {
			close();
			throw new IllegalStateException("Pool '" + name + "' cannot create its " + settings.minIdle()
					+ " min-idle connections: " + ex.getMessage(), ex);
		}
	}

	/** The Commons Pool configuration of the settings. */
	static <T> GenericObjectPoolConfig<Handle<T>> config(ConnectionPoolSettings settings) {
		GenericObjectPoolConfig<Handle<T>> config = new GenericObjectPoolConfig<>();
		config.setJmxEnabled(false);
		config.setMaxTotal(settings.maxSize());
		config.setMaxIdle(settings.maxSize());
		config.setMinIdle(settings.minIdle());
		// The wait for room when the pool tops itself up (a replacement, min-idle): with none,
		// Commons Pool's create() spins while another creation may fill the pool.
		config.setMaxWait(ROOM_WAIT);
		// Commons Pool's defaults kept: a borrower blocks when the pool is exhausted, and the lock
		// is not fair. When many waiting callers reach their deadline at once, a fair lock hands
		// itself from one to the next, each hand-off waiting for a thread to be scheduled, and the
		// last callers come back late.
		Duration maxIdleTime = settings.maxIdleTime();
		config.setMinEvictableIdleDuration((maxIdleTime != null) ? maxIdleTime : Duration.ofMillis(-1));
		config.setNumTestsPerEvictionRun(-1);
		if (maxIdleTime != null || settings.minIdle() > 0) {
			// Every max-idle-time, kept between one and thirty seconds; compared as durations, which
			// a max-idle-time of hundreds of years (toMillis() would overflow) cannot break.
			Duration period = (maxIdleTime != null) ? maxIdleTime : EVICTION_PERIOD_CAP;
			if (period.compareTo(EVICTION_PERIOD_CAP) > 0) {
				period = EVICTION_PERIOD_CAP;
			}
			else if (period.compareTo(EVICTION_PERIOD_FLOOR) < 0) {
				period = EVICTION_PERIOD_FLOOR;
			}
			config.setTimeBetweenEvictionRuns(period);
		}
		return config;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public ConnectionPoolSettings getSettings() {
		return this.settings;
	}

	@Override
	public synchronized void updateSettings(ConnectionPoolSettings settings) {
		ConnectionPoolSettings previous = this.settings;
		if (this.workers instanceof ThreadPoolExecutor executor) {
			// Platform workers, in proportion to the connections (see WorkerThreads), set before
			// a larger pool hands out more.
			WorkerThreads.resize(executor,
					Math.max(1, executor.getMaximumPoolSize() * settings.maxSize() / previous.maxSize()));
		}
		this.creatingThreads.resize(settings.maxSize());
		this.settings = settings;
		this.pool.setConfig(config(settings));
		trimIdle(settings.maxSize());
		// Callers blocked in Commons Pool wait for an idle connection, not for room: make one for
		// each of them the new room allows (none unless the pool grew). The asynchronous ones are
		// served by a drain.
		int added = settings.maxSize() - previous.maxSize();
		for (int i = Math.min(added, this.pool.getNumWaiters()); i > 0; i--) {
			replenish(false);
		}
		signal();
	}

	/**
	 * Closes idle connections while the pool holds more than its size, as after it was made
	 * smaller: Commons Pool hands out an idle connection whatever its limit. With none idle left
	 * and still more out than the size, those out are closed as they come back ({@code shrunk}).
	 */
	private void trimIdle(int maxSize) {
		while (this.pool.getNumIdle() + this.pool.getNumActive() > maxSize) {
			Handle<T> idle;
			try {
				// Never a new connection: the pool is over its size.
				idle = this.pool.borrowObject(Duration.ZERO);
			}
			catch (Exception ex) {
				// None idle.
				this.shrunk = true;
				return;
			}
			invalidateQuietly(idle);
		}
	}

	@Override
	public ConnectionPoolStats getStats() {
		return new ConnectionPoolStats(this.settings.maxSize(), this.pool.getNumActive(), this.pool.getNumIdle(),
				this.pool.getNumWaiters() + this.waiting.get(), this.abandoned.get());
	}

	/**
	 * Names the pool and the counts behind its stats, as a failure report or a debugger shows them:
	 * the asynchronous checkouts counted as waiting, those still queued and how many of these wait
	 * (ended ones leave the queue lazily), the callers waiting inside Commons Pool, the signals not
	 * yet served.
	 */
	@Override
	public String toString() {
		int queued = 0;
		int queuedWaiting = 0;
		for (DeadlineLease<T> lease : this.waiters) {
			queued++;
			queuedWaiting += lease.isWaiting() ? 1 : 0;
		}
		return "DeadlinePool '" + this.name + "' [waiting " + this.waiting.get() + ", queued " + queued + " ("
				+ queuedWaiting + " waiting), waiting in Commons Pool " + this.pool.getNumWaiters() + ", active "
				+ this.pool.getNumActive() + ", idle " + this.pool.getNumIdle() + ", abandoned " + this.abandoned.get()
				+ ", drain requests " + this.drainRequests.get() + ", being made " + this.creating.get() + " (and "
				+ this.replenishing.get() + " outside Commons Pool)]";
	}

	@Override
	public T current() {
		HeldConnections held = HeldConnections.find(this);
		if (held == null) {
			throw new IllegalStateException("No connection of pool '" + this.name
					+ "' is held here; current() works inside a @WithConnection(pool = \"" + this.name
					+ "\") method or a withConnection callback of this pool");
		}
		if (held.isEnded()) {
			throw new IllegalStateException("The call that held a connection of pool '" + this.name
					+ "' here has ended, and its connection went back to the pool; current() works while the "
					+ "call runs, not in a continuation that outlives it");
		}
		return held.<T>handle().connection();
	}

	/** The connection of this pool that the running call holds, or {@code null} outside one. */
	private @Nullable T held() {
		HeldConnections held = HeldConnections.find(this);
		return (held != null && !held.isEnded()) ? held.<T>handle().connection() : null;
	}

	@Override
	public <R> R withConnection(Duration timeout, ConnectionCallback<T, R> callback) {
		ConnectionPoolSettings.requirePositive("timeout", timeout);
		Objects.requireNonNull(callback, "callback");
		T held = held();
		if (held != null) {
			// Nested in work of this pool: waiting for a second connection could wait for ourselves.
			return invoke(callback, held);
		}
		long start = this.ticker.read();
		Handle<T> handle = checkout(start, timeout);
		return execute(handle, callback, start, timeout);
	}

	@Override
	public <R> CompletableFuture<R> withConnectionAsync(Duration timeout, AsyncConnectionCallback<T, R> callback) {
		ConnectionPoolSettings.requirePositive("timeout", timeout);
		Objects.requireNonNull(callback, "callback");
		T held = held();
		if (held != null) {
			// Nested in work of this pool: waiting for a second connection could wait for ourselves.
			return startNested(callback, held);
		}
		DeadlineLease<T> lease = lease(timeout);
		CompletableFuture<R> result = new CompletableFuture<>();
		AtomicReference<@Nullable CompletableFuture<R>> work = new AtomicReference<>();
		// Whether the work starts or the caller cancels first, decided once: a cancellation that
		// comes before the work started never lets it start.
		AtomicBoolean decided = new AtomicBoolean();
		result.whenComplete((value, ex) -> {
			if (!result.isCancelled()) {
				return;
			}
			if (decided.compareAndSet(false, true)) {
				// Before the work: waiting, it leaves the queue; checked out, the connection was
				// never used and goes back as it is.
				lease.checkout.cancel(false);
				lease.giveBackUnused();
			}
			else {
				// The work stopped midway, so the state of its connection is unknown, as at the
				// deadline: the connection is invalidated, and closed once the work's stage lets go
				// of it, not under work that goes on.
				lease.abandon();
				cancel(work.get());
			}
		});
		Thread caller = Thread.currentThread();
		lease.checkout.whenComplete((ignored, checkoutFailure) -> {
			if (checkoutFailure == null && Thread.currentThread() == caller) {
				// Delivered before this was attached: the work still starts on the scheduler,
				// never on the caller's thread (an event loop, say).
				onScheduler(() -> checkedOut(lease, checkoutFailure, callback, result, work, decided));
			}
			else {
				checkedOut(lease, checkoutFailure, callback, result, work, decided);
			}
		});
		return result;
	}

	private <R> void checkedOut(DeadlineLease<T> lease, @Nullable Throwable checkoutFailure,
			AsyncConnectionCallback<T, R> callback, CompletableFuture<R> result,
			AtomicReference<@Nullable CompletableFuture<R>> work, AtomicBoolean decided) {
		if (checkoutFailure != null) {
			result.completeExceptionally(ScheduledAttempts.unwrap(checkoutFailure));
		}
		else if (decided.compareAndSet(false, true)) {
			start(lease, callback, result, work);
		}
		// Otherwise cancelled before the work started: the cancellation gave the connection back.
	}

	/** Starts the work with a leased connection, on the scheduler. */
	private <R> void start(DeadlineLease<T> lease, AsyncConnectionCallback<T, R> callback, CompletableFuture<R> result,
			AtomicReference<@Nullable CompletableFuture<R>> work) {
		CompletionStage<R> stage;
		try {
			stage = lease.callWithCurrent(() -> callback.doWithConnection(lease.connection()));
			if (stage == null) {
				throw new NullPointerException("The callback given to pool '" + this.name + "' returned no stage");
			}
		}
		catch (Throwable ex) {
			if (lease.release(ex, () -> result.completeExceptionally(ex))) {
				return;
			}
			// The deadline passed while the callback ran: the caller hears of the timeout.
			lease.expiryInternal().whenComplete((none, timeout) -> {
				if (timeout != null) {
					result.completeExceptionally(timeout);
				}
			});
			return;
		}
		@Nullable CompletableFuture<R> future = toFuture(stage);
		work.set(future);
		if (result.isCancelled()) {
			cancel(future);
		}
		lease.expiryInternal().whenComplete((none, timeout) -> {
			if (timeout != null) {
				// The work is cancelled before the caller hears of the timeout, so the caller never
				// sees it still running.
				cancel(future);
				result.completeExceptionally(timeout);
			}
		});
		stage.whenComplete((value, failure) -> {
			// Decided on the thread that completed the stage; the connection goes back on the
			// returning thread, then the outcome goes on on the scheduler.
			lease.release(failure, () -> {
				if (failure != null) {
					result.completeExceptionally(ScheduledAttempts.unwrap(failure));
				}
				else {
					result.complete(value);
				}
			});
		});
	}

	private <R> CompletableFuture<R> startNested(AsyncConnectionCallback<T, R> callback, T connection) {
		CompletableFuture<R> result = new CompletableFuture<>();
		try {
			CompletionStage<R> stage = callback.doWithConnection(connection);
			if (stage == null) {
				throw new NullPointerException("The callback given to pool '" + this.name + "' returned no stage");
			}
			@Nullable CompletableFuture<R> future = toFuture(stage);
			result.whenComplete((value, ex) -> {
				if (result.isCancelled()) {
					cancel(future);
				}
			});
			stage.whenComplete((value, failure) -> {
				if (failure != null) {
					result.completeExceptionally(ScheduledAttempts.unwrap(failure));
				}
				else {
					result.complete(value);
				}
			});
		}
		catch (Throwable ex) {
			result.completeExceptionally(ex);
		}
		return result;
	}

	/** The stage as a future to cancel, or {@code null} if it cannot be cancelled. */
	private static <R> @Nullable CompletableFuture<R> toFuture(CompletionStage<R> stage) {
		try {
			return stage.toCompletableFuture();
		}
		catch (UnsupportedOperationException ex) {
			// A stage that cannot be cancelled: nothing to stop, the outcome is awaited all the same.
			return null;
		}
	}

	private static void cancel(@Nullable CompletableFuture<?> work) {
		if (work != null) {
			work.cancel(true);
		}
	}

	@Override
	public CompletableFuture<ConnectionLease<T>> checkoutAsync(Duration timeout) {
		ConnectionPoolSettings.requirePositive("timeout", timeout);
		return lease(timeout).checkout;
	}

	/** Queues an asynchronous checkout and arms its deadline. */
	private DeadlineLease<T> lease(Duration timeout) {
		DeadlineLease<T> lease = new DeadlineLease<>(this, timeout, this.ticker.read(),
				this.contextSnapshots.captureAll());
		if (this.pool.isClosed()) {
			lease.checkout.completeExceptionally(closed());
			return lease;
		}
		this.waiting.incrementAndGet();
		this.waiters.add(lease);
		try {
			lease.schedule();
		}
		catch (RejectedExecutionException ex) {
			lease.fail(new IllegalStateException("Pool '" + this.name + "' cannot time its deadline: its scheduler "
					+ this.scheduler + " is shut down", ex));
			return lease;
		}
		signal();
		return lease;
	}

	/**
	 * Tells the borrowing thread that a connection may be there for a waiting checkout. Called
	 * after every event that can make one available: a checkout queued, a connection given back,
	 * invalidated (which makes a replacement) or made, whether it failed or not.
	 */
	private void signal() {
		if (this.waiters.isEmpty() || this.drainRequests.getAndIncrement() != 0) {
			return;
		}
		try {
			this.borrower.execute(this::drain);
		}
		catch (RejectedExecutionException ex) {
			// Closed: closing fails the waiting checkouts.
			this.drainRequests.set(0);
		}
	}

	/** Serves waiting checkouts until no signal is left unserved. */
	private void drain() {
		int missed = 1;
		while (true) {
			if (!serve()) {
				return;
			}
			missed = this.drainRequests.addAndGet(-missed);
			if (missed == 0) {
				return;
			}
		}
	}

	/**
	 * Hands connections to waiting checkouts while both are there.
	 * @return {@code false} if the borrowing thread was interrupted as the pool closes
	 */
	private boolean serve() {
		while (true) {
			DeadlineLease<T> first = firstWaiting();
			if (first == null) {
				return true;
			}
			Handle<T> handle;
			try {
				handle = borrowNow();
			}
			catch (Exception | Error ex) {
				if (ex instanceof InterruptedException && this.borrower.isShutdown()) {
					// Closing interrupted this thread (it shuts the borrower down first): stop here,
					// keeping the interrupt; closing fails the checkouts still waiting.
					Thread.currentThread().interrupt();
					return false;
				}
				// Commons Pool could not hand out a connection (its activation failed, say): the first
				// in the queue sees the exception. An Error too, or it would end the borrowing thread's
				// drain with its signals left counted, and no later checkout would be served.
				first.fail(this.pool.isClosed() ? closed() : ex);
				continue;
			}
			if (handle == null) {
				requestCreations();
				return true;
			}
			if (this.settings.validateOnCheckout() && !isValid(handle)) {
				// Closed on the replacing thread, and replaced: it may have been given back for a
				// blocking caller, which waits for a connection to come, not for room.
				invalidateLater(handle);
				continue;
			}
			if (!handOut(handle)) {
				this.pool.returnObject(handle);
			}
		}
	}

	private @Nullable DeadlineLease<T> firstWaiting() {
		DeadlineLease<T> first = this.waiters.peek();
		while (first != null && !first.isWaiting()) {
			this.waiters.remove(first);
			first = this.waiters.peek();
		}
		return first;
	}

	/** Offers a connection to the waiting checkouts in turn until one takes it. */
	private boolean handOut(Handle<T> handle) {
		for (DeadlineLease<T> lease = this.waiters.poll(); lease != null; lease = this.waiters.poll()) {
			if (lease.grant(handle)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Borrows a connection idle, without waiting for one to be given back nor making one (that is
	 * for {@link #requestCreations}, on the creating threads); {@code null} if none is idle. Whether
	 * one is idle is read first, so that Commons Pool is not called when none is, the usual case
	 * while checkouts wait.
	 */
	private @Nullable Handle<T> borrowNow() throws Exception {
		if (this.pool.getNumIdle() == 0) {
			return null;
		}
		try {
			return refusingCreations(() -> this.pool.borrowObject(ROOM_WAIT));
		}
		catch (NoSuchElementException | CreatingThreads.NotMade ex) {
			// Taken by another thread first.
			return null;
		}
	}

	/**
	 * Runs code of Commons Pool on this thread with creations refused ({@link HandleFactory} makes
	 * none, taking only a connection made too late for its caller): the thread waits for none.
	 */
	private <R> R refusingCreations(Callable<R> code) throws Exception {
		this.creationDeadline.set(System.nanoTime());
		try {
			return code.call();
		}
		finally {
			this.creationDeadline.remove();
		}
	}

	/**
	 * Has connections made on the creating threads for the asynchronous checkouts waiting beyond
	 * the connections being made there, as far as the pool has room. The borrowing thread never
	 * waits for a creation: a factory that hangs would hold it, and every connection given back
	 * from reaching the checkouts.
	 */
	private void requestCreations() {
		// Counted once: a creation may end, and no longer count, before its connection is handed out.
		// Not counting replacements, which may go to blocking callers.
		for (int wanted = this.waiting.get() - this.requested.get(); wanted > 0 && hasRoom(); wanted--) {
			replenish(true);
		}
	}

	/**
	 * Has a connection made on a creating thread, outside Commons Pool, counted as taking room
	 * until it ends: made, it goes as a connection made too late for its caller does; its failure
	 * goes to the first asynchronous checkout waiting.
	 */
	private void replenish(boolean forCheckouts) {
		this.replenishing.incrementAndGet();
		if (forCheckouts) {
			this.requested.incrementAndGet();
		}
		this.creatingThreads.replenish(this::creationFailed, () -> replenished(forCheckouts));
	}

	private void creationFailed(Throwable ex) {
		DeadlineLease<T> first = firstWaiting();
		if (first != null) {
			first.fail(this.pool.isClosed() ? closed() : ex);
		}
	}

	private void replenished(boolean forCheckouts) {
		if (forCheckouts) {
			this.requested.decrementAndGet();
		}
		this.replenishing.decrementAndGet();
		signal();
	}

	/**
	 * Whether the pool has room for one more connection, counted as Commons Pool does: made and not
	 * yet destroyed (one being destroyed still takes its place) and being made, for Commons Pool and
	 * outside it.
	 */
	private boolean hasRoom() {
		long held = this.pool.getCreatedCount() - this.pool.getDestroyedCount() + this.creating.get()
				+ this.replenishing.get();
		return held < this.settings.maxSize();
	}

	/** Gives a connection back to the pool, for whoever waits. */
	void giveBack(Handle<T> handle) {
		if (this.shrunk && overSize()) {
			// The pool was made smaller at run time and still has more out than its new size: close
			// this connection rather than keep it for the next caller.
			invalidateLater(handle);
			return;
		}
		this.pool.returnObject(handle);
		signal();
	}

	/** Whether more connections are out than the size allows (counting the one coming back). */
	private boolean overSize() {
		if (this.pool.getNumActive() > this.settings.maxSize()) {
			return true;
		}
		this.shrunk = false;
		return false;
	}

	/**
	 * Gives the connection of an asynchronous call back on the returning thread, then runs what
	 * follows (the outcome reaching the caller), if anything, on the scheduler.
	 */
	void giveBackLater(Handle<T> handle, @Nullable Runnable then) {
		Runnable giving = () -> {
			try {
				giveBack(handle);
			}
			finally {
				if (then != null) {
					onScheduler(then);
				}
			}
		};
		try {
			this.returner.execute(giving);
		}
		catch (RejectedExecutionException ex) {
			// Closed: the connection is closed as it goes back.
			giving.run();
		}
	}

	/**
	 * Invalidates a connection on the replacing thread, where closing it may take a while, and has
	 * a replacement made on a creating thread for the callers waiting in Commons Pool (which wait
	 * for a connection to come, not for room); signals the waiting checkouts.
	 */
	void invalidateLater(Handle<T> handle) {
		destroyLater(handle, true);
	}

	/**
	 * Invalidates a connection on the replacing thread, then signals.
	 * @param replace whether to have a replacement made on a creating thread
	 * @return completed once the connection's place is free
	 */
	private CompletableFuture<Void> destroyLater(Handle<T> handle, boolean replace) {
		CompletableFuture<Void> destroyed = new CompletableFuture<>();
		Runnable invalidation = () -> {
			invalidateQuietly(handle);
			destroyed.complete(null);
			if (replace && hasRoom()) {
				replenish(false);
			}
			signal();
		};
		try {
			this.replacer.execute(invalidation);
		}
		catch (RejectedExecutionException ex) {
			// Closed: no replacement is made.
			invalidation.run();
		}
		return destroyed;
	}

	/**
	 * The holder of a lease that the deadline invalidated lets go of its connection, which is
	 * closed then, on the replacing thread (closing may take a while).
	 */
	void letGo(Handle<T> handle) {
		this.abandoned.decrementAndGet();
		try {
			this.replacer.execute(handle::release);
		}
		catch (RejectedExecutionException ex) {
			handle.release();
		}
	}

	/** A checkout left the queue of the waiting ones. */
	void dequeued(DeadlineLease<T> lease, boolean remove) {
		this.waiting.decrementAndGet();
		if (remove) {
			this.waiters.remove(lease);
		}
	}

	void abandoned(int delta) {
		this.abandoned.addAndGet(delta);
	}

	/** Runs a task on the scheduler, or here if the scheduler is shut down. */
	void onScheduler(Runnable task) {
		ScheduledAttempts.execute(this.scheduler, task);
	}

	ScheduledExecutorService scheduler() {
		return this.scheduler;
	}

	long read() {
		return this.ticker.read();
	}

	/**
	 * Puts a connection made for a caller that stopped waiting in the pool, if it has room: as a
	 * connection Commons Pool makes, which {@link HandleFactory} takes from the unclaimed ones, and
	 * never makes anew here.
	 */
	private void addUnclaimed() {
		try {
			refusingCreations(() -> {
				this.pool.addObject();
				return null;
			});
		}
		catch (Exception ex) {
			// Closed, or taken by another creation already (the pool is full then, or one was made).
		}
		if (this.pool.isClosed()) {
			// Closed while the connection was added: Commons Pool does not look again.
			this.pool.clear();
		}
		signal();
	}

	/** A creation of a connection starts. */
	private void creating() {
		this.creating.incrementAndGet();
	}

	/**
	 * A creation for Commons Pool ended, made or not. Who waits for a connection is told later, once
	 * Commons Pool has counted the connection made or the room left (until then, room counted here
	 * would be room twice): by the blocking caller whose creation it was, else on the scheduler.
	 * @param forCaller whether a blocking caller waited for it
	 */
	private void created(boolean forCaller) {
		this.creating.decrementAndGet();
		if (!forCaller) {
			onScheduler(this::signal);
		}
	}

	private Handle<T> checkout(long start, Duration timeout) {
		if (this.pool.isClosed()) {
			throw closed();
		}
		long timeoutNanos = Durations.saturatedNanos(timeout);
		while (true) {
			long left = timeoutNanos - (this.ticker.read() - start);
			Handle<T> handle = (left > 0) ? borrow(left) : null;
			long waited = this.ticker.read() - start;
			if (handle == null || waited >= timeoutNanos) {
				if (handle != null) {
					giveBack(handle);
				}
				checkout(CheckoutOutcome.TIMEOUT, waited);
				throw new CheckoutTimeoutException(this.name, timeout, Duration.ofNanos(waited));
			}
			if (!this.settings.validateOnCheckout() || isValid(handle)) {
				checkout(CheckoutOutcome.ACQUIRED, waited);
				return handle;
			}
			// Closed on the replacing thread, where closing cannot hold the caller past its deadline,
			// and not replaced: the caller waits for its place, then takes it itself and sees the
			// factory's exception if a connection cannot be made.
			awaitWithin(destroyLater(handle, false), timeoutNanos - (this.ticker.read() - start));
		}
	}

	/** Waits for a step of the pool's own for at most the time left; the caller sees no failure of it. */
	private void awaitWithin(CompletableFuture<Void> step, long nanos) {
		try {
			step.get(nanos, TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted();
		}
		catch (ExecutionException | TimeoutException ex) {
			// The checkout goes on, and times out if no time is left.
		}
	}

	private @Nullable Handle<T> borrow(long nanos) {
		this.creationDeadline.set(System.nanoTime() + nanos);
		boolean borrowed = false;
		try {
			Handle<T> handle = this.pool.borrowObject(Duration.ofNanos(nanos));
			borrowed = true;
			return handle;
		}
		catch (NoSuchElementException | CreatingThreads.NotMade ex) {
			// With blockWhenExhausted and no validation inside Commons Pool, the wait ran out, or
			// the deadline came while a connection was made for this caller.
			return null;
		}
		catch (InterruptedException ex) {
			if (this.pool.isClosed()) {
				// Closing the pool interrupts the threads waiting in it (Commons Pool), which cannot
				// be told from an interrupt of the caller's own at that moment: taken as closing, so
				// the thread is left uninterrupted and told the pool closed.
				throw closed();
			}
			Thread.currentThread().interrupt();
			throw interrupted();
		}
		catch (Exception ex) {
			// The factory could not make a connection: the caller sees its exception.
			throw sneakyThrow(ex);
		}
		finally {
			this.creationDeadline.remove();
			if (!borrowed) {
				// A creation for this caller may have failed or been left behind: room came back.
				signal();
			}
		}
	}

	private boolean isValid(Handle<T> handle) {
		try {
			return this.factory.validate(handle.connection());
		}
		catch (RuntimeException | Error ex) {
			// Not known to be good: replaced, and the borrowed handle is not lost.
			return false;
		}
	}

	private <R> R execute(Handle<T> handle, ConnectionCallback<T, R> callback, long start, Duration timeout) {
		long started = this.ticker.read();
		Call<R> call = new Call<>(handle, callback, this.contextSnapshots.captureAll());
		try {
			this.workers.execute(call);
		}
		catch (RejectedExecutionException ex) {
			giveBack(handle);
			throw closed();
		}
		long left = Durations.saturatedNanos(timeout) - (started - start);
		try {
			if (!call.await(left)) {
				abandon(call);
				operation(OperationOutcome.TIMEOUT, started);
				throw new OperationTimeoutException(this.name, timeout, Duration.ofNanos(this.ticker.read() - start));
			}
		}
		catch (InterruptedException ex) {
			abandon(call);
			Thread.currentThread().interrupt();
			throw interrupted();
		}
		Throwable failure = call.failure;
		if (failure != null) {
			operation(OperationOutcome.ERROR, started);
			throw sneakyThrow(failure);
		}
		operation(OperationOutcome.SUCCESS, started);
		return call.value;
	}

	/**
	 * Gives up on a call: a call not yet started never will and its connection goes back unused;
	 * running work is interrupted and its connection invalidated. Work that finished at this very
	 * moment has returned its connection itself; the caller still gives up, as its deadline has
	 * passed.
	 */
	private void abandon(Call<?> call) {
		if (call.claim(Call.NEW, Call.CANCELLED)) {
			giveBack(call.handle);
		}
		else {
			// Counted before the work can see itself abandoned, so the count never dips below zero.
			this.abandoned.incrementAndGet();
			if (call.claim(Call.RUNNING, Call.ABANDONING)) {
				call.interrupt();
				invalidateLater(call.handle);
			}
			else {
				this.abandoned.decrementAndGet();
			}
		}
	}

	/**
	 * Invalidates a connection, refusing the replacement Commons Pool makes as part of it: made
	 * here, a factory that hangs would hold this thread (the replacing thread: every invalidation
	 * behind it, and the places they free); replacements are made by {@link #replenish}.
	 */
	private void invalidateQuietly(Handle<T> handle) {
		try {
			refusingCreations(() -> {
				this.pool.invalidateObject(handle);
				return null;
			});
		}
		catch (Exception ex) {
			// The place is free already; the next caller that needs a connection makes one.
		}
	}

	/** Tells the listeners of a checkout; one that throws cannot keep the caller from its connection. */
	void checkout(CheckoutOutcome outcome, long waitedNanos) {
		if (this.listeners.isEmpty()) {
			return;
		}
		Duration waited = Duration.ofNanos(waitedNanos);
		Listeners.tell(this.listeners, (listener) -> listener.onCheckout(this.name, outcome, waited), logger,
				"Pool listener");
	}

	/** Tells the listeners of an operation; one that throws cannot change the caller's outcome. */
	void operation(OperationOutcome outcome, long started) {
		if (this.listeners.isEmpty()) {
			return;
		}
		Duration duration = Duration.ofNanos(this.ticker.read() - started);
		Listeners.tell(this.listeners, (listener) -> listener.onOperation(this.name, outcome, duration), logger,
				"Pool listener");
	}

	private <R> R invoke(ConnectionCallback<T, R> callback, T connection) {
		try {
			return callback.doWithConnection(connection);
		}
		catch (Exception ex) {
			throw sneakyThrow(ex);
		}
	}

	private IllegalStateException closed() {
		return new IllegalStateException("Pool '" + this.name + "' is closed");
	}

	private CancellationException interrupted() {
		return new CancellationException("Interrupted while waiting for pool '" + this.name + "'");
	}

	@Override
	public void close() {
		this.workers.shutdownNow();
		this.replacer.shutdown();
		this.returner.shutdown();
		this.borrower.shutdownNow();
		this.pool.close();
		this.creatingThreads.close();
		for (DeadlineLease<T> lease = this.waiters.poll(); lease != null; lease = this.waiters.poll()) {
			lease.fail(closed());
		}
	}

	/**
	 * Closes idle connections past {@code max-idle-time} and tops up {@code min-idle} now, as the
	 * pool's background maintenance does periodically.
	 * @throws Exception if a connection cannot be made
	 */
	void maintain() throws Exception {
		this.pool.evict();
		this.pool.preparePool();
	}

	/** Rethrows any exception unchanged, checked ones included, as callers of the callback expect. */
	@SuppressWarnings("unchecked")
	private static <E extends Throwable> RuntimeException sneakyThrow(Throwable ex) throws E {
		throw (E) ex;
	}

	/**
	 * One call's work, run by a worker thread, and the caller's wait for it. Its state moves once
	 * from {@code NEW} to {@code RUNNING} (by the worker) or {@code CANCELLED} (by the caller at the
	 * deadline), and once from {@code RUNNING} to {@code DONE} (by the worker, which gives the
	 * connection back and then makes it {@code SETTLED} with the outcome) or {@code ABANDONING} (by
	 * the caller, which interrupts the worker and then makes it {@code ABANDONED}).
	 */
	private final class Call<R> implements Runnable {

		static final int NEW = 0;

		static final int RUNNING = 1;

		static final int DONE = 2;

		static final int SETTLED = 3;

		static final int CANCELLED = 4;

		static final int ABANDONING = 5;

		static final int ABANDONED = 6;

		/*
		 * Chosen for speed, in place of a FutureTask: the caller spins for the outcome before it
		 * sleeps (see Spin), since work that ends within microseconds would otherwise cost it a
		 * wake-up on top of the worker's; and it sleeps with parkNanos until the deadline, so no
		 * timer task is made or cancelled per call. The outcome is written before the state becomes
		 * SETTLED and read after it is seen, and the worker wakes the caller only if it sleeps
		 * ({@code waiter}, set before the caller's last look at the state).
		 */

		final AtomicInteger state = new AtomicInteger(NEW);

		final Handle<T> handle;

		private final ConnectionCallback<T, R> callback;

		private final ContextSnapshot context;

		/** The worker thread, set before it claims the call, for the caller to interrupt. */
		private @Nullable Thread runner;

		/** The caller, once it sleeps. */
		private volatile @Nullable Thread waiter;

		@Nullable R value;

		@Nullable Throwable failure;

		/** The connections the caller holds, which the work holds too, inside this call's. */
		private final @Nullable HeldConnections outer;

		Call(Handle<T> handle, ConnectionCallback<T, R> callback, ContextSnapshot context) {
			this.handle = handle;
			this.callback = callback;
			this.context = context;
			this.outer = HeldConnections.get();
		}

		boolean claim(int from, int to) {
			return this.state.compareAndSet(from, to);
		}

		@Override
		public void run() {
			// Hold the connection before claiming the call, so an invalidation right after the
			// claim cannot close it under the work. A connection closed already was given back by
			// a caller that stopped waiting before this work got a thread: nothing to run, and
			// holding it then letting go would close it a second time.
			if (!this.handle.retainIfOpen()) {
				return;
			}
			this.runner = Thread.currentThread();
			if (!claim(NEW, RUNNING)) {
				this.handle.release();
				return;
			}
			// Carried by the call itself, not only by the context: a snapshot factory of the user's
			// may not know the held connections, and a nested pool's work needs the outer connection.
			HeldConnections held = HeldConnections.inside(this.outer, DeadlinePool.this, this.handle);
			try (ContextSnapshot.Scope scope = this.context.setThreadLocals()) {
				this.value = held.call(() -> this.callback.doWithConnection(this.handle.connection()));
			}
			catch (Throwable ex) {
				this.failure = ex;
			}
			finally {
				held.end();
				this.handle.release();
				if (claim(RUNNING, DONE)) {
					settle();
				}
				else {
					// The caller interrupts this thread before it says so: wait, so that the
					// interrupt cannot reach the next work this thread runs. Yielding now and then, so
					// a caller pre-empted between the two steps gets the core back.
					for (int round = 0; this.state.get() == ABANDONING; round++) {
						Spin.pause(round);
					}
					DeadlinePool.this.abandoned.decrementAndGet();
				}
			}
		}

		/** Gives the connection back, then hands the outcome to the caller. */
		private void settle() {
			try {
				giveBack(this.handle);
			}
			catch (RuntimeException | Error ex) {
				this.value = null;
				this.failure = ex;
			}
			finally {
				this.state.set(SETTLED);
				Thread sleeper = this.waiter;
				if (sleeper != null) {
					LockSupport.unpark(sleeper);
				}
			}
		}

		/** Interrupts the work the caller abandoned, then lets the worker go on. */
		void interrupt() {
			Thread worker = this.runner;
			try {
				if (worker != null) {
					worker.interrupt();
				}
			}
			finally {
				// Whatever interrupting did, the worker waiting for this must not wait forever.
				this.state.set(ABANDONED);
			}
		}

		/**
		 * Waits for the outcome for at most the time left. Real time, as any timed wait of the JDK:
		 * the pool's ticker gave the time left.
		 * @return whether the outcome came; if not, the caller abandons the call
		 */
		boolean await(long nanos) throws InterruptedException {
			long until = System.nanoTime() + nanos;
			// The busy wait ends at the deadline too: on a busy machine its yields may be long.
			for (int round = 0; round < Spin.ROUNDS && until - System.nanoTime() > 0; round++) {
				if (this.state.get() == SETTLED) {
					return true;
				}
				Spin.pause(round);
			}
			this.waiter = Thread.currentThread();
			while (this.state.get() != SETTLED) {
				if (Thread.interrupted()) {
					throw new InterruptedException();
				}
				long left = until - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				LockSupport.parkNanos(this, left);
			}
			return true;
		}

	}

	/**
	 * Makes handles for Commons Pool: a connection made for a caller that stopped waiting if there
	 * is one, else through the user's factory, on a creating thread for a blocking checkout, none
	 * for a thread that waits for no creation, and here on the pool's other threads; it tells the
	 * pool when a creation starts and ends. Destroying a handle is letting go of it.
	 */
	private static final class HandleFactory<T> extends BasePooledObjectFactory<Handle<T>> {

		private final CreatingThreads<T> threads;

		private final ThreadLocal<@Nullable Long> creationDeadline;

		private final Runnable starting;

		/** Told whether a blocking caller waited for the creation. */
		private final Consumer<Boolean> ended;

		HandleFactory(CreatingThreads<T> threads, ThreadLocal<@Nullable Long> creationDeadline, Runnable starting,
				Consumer<Boolean> ended) {
			this.threads = threads;
			this.creationDeadline = creationDeadline;
			this.starting = starting;
			this.ended = ended;
		}

		@Override
		public Handle<T> create() throws Exception {
			Handle<T> unclaimed = this.threads.takeUnclaimed();
			if (unclaimed != null) {
				return unclaimed;
			}
			Long until = this.creationDeadline.get();
			long nanos = (until != null) ? until - System.nanoTime() : 0;
			if (until != null && nanos <= 0) {
				// A thread that waits for no creation makes none (not even one counted as started).
				throw CreatingThreads.NotMade.INSTANCE;
			}
			this.starting.run();
			try {
				return (until != null) ? this.threads.make(nanos) : this.threads.makeHere();
			}
			finally {
				this.ended.accept(until != null);
			}
		}

		@Override
		public PooledObject<Handle<T>> wrap(Handle<T> handle) {
			return new DefaultPooledObject<>(handle);
		}

		@Override
		public void destroyObject(PooledObject<Handle<T>> pooled) {
			pooled.getObject().release();
		}

	}

}
