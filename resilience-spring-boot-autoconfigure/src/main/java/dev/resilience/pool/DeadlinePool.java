package dev.resilience.pool;

import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;

import dev.resilience.Listeners;
import dev.resilience.Ticker;
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
 * at the deadline run on a thread of their own, made when needed.
 *
 * @param <T> the connection type
 */
final class DeadlinePool<T> implements ConnectionPool<T> {

	private static final System.Logger logger = System.getLogger(DeadlinePool.class.getName());

	private static final Duration EVICTION_PERIOD_CAP = Duration.ofSeconds(30);

	private static final Duration EVICTION_PERIOD_FLOOR = Duration.ofSeconds(1);

	private final String name;

	private final ConnectionFactory<T> factory;

	private final ConnectionPoolSettings settings;

	private final Ticker ticker;

	private final List<ConnectionPoolListener> listeners;

	private final ContextSnapshotFactory contextSnapshots;

	private final GenericObjectPool<Handle<T>> pool;

	private final ExecutorService workers;

	private final ExecutorService replacer;

	private final ThreadLocal<@Nullable Handle<T>> current = new ThreadLocal<>();

	private final AtomicInteger abandoned = new AtomicInteger();

	DeadlinePool(String name, ConnectionFactory<T> factory, ConnectionPoolSettings settings, Ticker ticker,
			List<ConnectionPoolListener> listeners, ContextSnapshotFactory contextSnapshots) {
		this(name, factory, settings, ticker, listeners, contextSnapshots, WorkerThreads.create(name, settings.maxSize()));
	}

	DeadlinePool(String name, ConnectionFactory<T> factory, ConnectionPoolSettings settings, Ticker ticker,
			List<ConnectionPoolListener> listeners, ContextSnapshotFactory contextSnapshots, ExecutorService workers) {
		this.name = name;
		this.factory = factory;
		this.settings = settings;
		this.ticker = ticker;
		this.listeners = listeners;
		this.contextSnapshots = contextSnapshots;
		this.pool = new GenericObjectPool<>(new HandleFactory<>(factory), config(settings));
		this.workers = workers;
		this.replacer = WorkerThreads.bounded(name + "-replacer", 1);
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
		config.setBlockWhenExhausted(true);
		// Not a fair lock: when many waiting callers reach their deadline at once, a fair lock
		// hands itself from one to the next, each hand-off waiting for a thread to be scheduled,
		// and the last callers come back late.
		config.setFairness(false);
		Duration maxIdleTime = settings.maxIdleTime();
		config.setMinEvictableIdleDuration((maxIdleTime != null) ? maxIdleTime : Duration.ofMillis(-1));
		config.setNumTestsPerEvictionRun(-1);
		if (maxIdleTime != null || settings.minIdle() > 0) {
			Duration period = (maxIdleTime != null && maxIdleTime.compareTo(EVICTION_PERIOD_CAP) < 0) ? maxIdleTime
					: EVICTION_PERIOD_CAP;
			config.setTimeBetweenEvictionRuns(
					(period.compareTo(EVICTION_PERIOD_FLOOR) > 0) ? period : EVICTION_PERIOD_FLOOR);
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
	public ConnectionPoolStats getStats() {
		return new ConnectionPoolStats(this.settings.maxSize(), this.pool.getNumActive(), this.pool.getNumIdle(),
				this.pool.getNumWaiters(), this.abandoned.get());
	}

	@Override
	public T current() {
		Handle<T> held = this.current.get();
		if (held == null) {
			throw new IllegalStateException("No connection of pool '" + this.name
					+ "' is held here; current() works inside a @WithConnection(pool = \"" + this.name
					+ "\") method or a withConnection callback of this pool");
		}
		return held.connection();
	}

	@Override
	public <R> R withConnection(Duration timeout, ConnectionCallback<T, R> callback) {
		ConnectionPoolSettings.requirePositive("timeout", timeout);
		Handle<T> held = this.current.get();
		if (held != null) {
			// Nested in work of this pool: waiting for a second connection could wait for ourselves.
			return invoke(callback, held.connection());
		}
		long start = this.ticker.read();
		Handle<T> handle = checkout(start, timeout);
		return execute(handle, callback, start, timeout);
	}

	private Handle<T> checkout(long start, Duration timeout) {
		if (this.pool.isClosed()) {
			throw closed();
		}
		while (true) {
			long left = timeout.toNanos() - (this.ticker.read() - start);
			Handle<T> handle = (left > 0) ? borrow(left) : null;
			long waited = this.ticker.read() - start;
			if (handle == null || waited >= timeout.toNanos()) {
				if (handle != null) {
					this.pool.returnObject(handle);
				}
				checkout(CheckoutOutcome.TIMEOUT, waited);
				throw new CheckoutTimeoutException(this.name, timeout, Duration.ofNanos(waited));
			}
			if (!this.settings.validateOnCheckout() || isValid(handle)) {
				checkout(CheckoutOutcome.ACQUIRED, waited);
				return handle;
			}
			invalidate(handle);
		}
	}

	private @Nullable Handle<T> borrow(long nanos) {
		try {
			return this.pool.borrowObject(Duration.ofNanos(nanos));
		}
		catch (NoSuchElementException ex) {
			// With blockWhenExhausted and no validation inside Commons Pool, the wait ran out.
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw interrupted();
		}
		catch (Exception ex) {
			// The factory could not make a connection: the caller sees its exception.
			throw sneakyThrow(ex);
		}
	}

	private boolean isValid(Handle<T> handle) {
		try {
			return this.factory.validate(handle.connection());
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private <R> R execute(Handle<T> handle, ConnectionCallback<T, R> callback, long start, Duration timeout) {
		long started = this.ticker.read();
		Call<R> call = new Call<>(handle, callback, this.contextSnapshots.captureAll());
		FutureTask<@Nullable R> task = new FutureTask<>(call::run);
		try {
			this.workers.execute(task);
		}
		catch (RejectedExecutionException ex) {
			this.pool.returnObject(handle);
			throw closed();
		}
		long left = timeout.toNanos() - (started - start);
		try {
			R result = task.get(left, TimeUnit.NANOSECONDS);
			operation(OperationOutcome.SUCCESS, started);
			return result;
		}
		catch (ExecutionException ex) {
			operation(OperationOutcome.ERROR, started);
			throw sneakyThrow(ex.getCause());
		}
		catch (TimeoutException ex) {
			abandon(call, task);
			operation(OperationOutcome.TIMEOUT, started);
			throw new OperationTimeoutException(this.name, timeout, Duration.ofNanos(this.ticker.read() - start));
		}
		catch (InterruptedException ex) {
			abandon(call, task);
			Thread.currentThread().interrupt();
			throw interrupted();
		}
	}

	/**
	 * Gives up on a call: a call not yet started never will and its connection goes back unused;
	 * running work is interrupted and its connection invalidated. Work that finished at this very
	 * moment has returned its connection itself; the caller still gives up, as its deadline has
	 * passed.
	 */
	private void abandon(Call<?> call, FutureTask<?> task) {
		if (call.state.compareAndSet(Call.NEW, Call.CANCELLED)) {
			this.pool.returnObject(call.handle);
		}
		else {
			// Counted before the work can see itself abandoned, so the count never dips below zero.
			this.abandoned.incrementAndGet();
			if (call.state.compareAndSet(Call.RUNNING, Call.ABANDONED)) {
				task.cancel(true);
				this.replacer.execute(() -> invalidateQuietly(call.handle));
			}
			else {
				this.abandoned.decrementAndGet();
			}
		}
	}

	private void invalidate(Handle<T> handle) {
		try {
			this.pool.invalidateObject(handle);
		}
		catch (Exception ex) {
			throw sneakyThrow(ex);
		}
	}

	private void invalidateQuietly(Handle<T> handle) {
		try {
			this.pool.invalidateObject(handle);
		}
		catch (Exception ex) {
			// The place is free already; the next caller that needs a connection makes one.
		}
	}

	/** Tells the listeners of a checkout; one that throws cannot keep the caller from its connection. */
	private void checkout(CheckoutOutcome outcome, long waitedNanos) {
		Duration waited = Duration.ofNanos(waitedNanos);
		Listeners.tell(this.listeners, (listener) -> listener.onCheckout(this.name, outcome, waited), logger,
				"Pool listener");
	}

	/** Tells the listeners of an operation; one that throws cannot change the caller's outcome. */
	private void operation(OperationOutcome outcome, long started) {
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
		this.pool.close();
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
	 * One call's work, run by a worker thread. Its state moves once from {@code NEW} to
	 * {@code RUNNING} (by the worker) or {@code CANCELLED} (by the caller at the deadline), and once
	 * from {@code RUNNING} to {@code DONE} (by the worker) or {@code ABANDONED} (by the caller).
	 */
	private final class Call<R> {

		static final int NEW = 0;

		static final int RUNNING = 1;

		static final int DONE = 2;

		static final int CANCELLED = 3;

		static final int ABANDONED = 4;

		final AtomicInteger state = new AtomicInteger(NEW);

		final Handle<T> handle;

		private final ConnectionCallback<T, R> callback;

		private final ContextSnapshot context;

		Call(Handle<T> handle, ConnectionCallback<T, R> callback, ContextSnapshot context) {
			this.handle = handle;
			this.callback = callback;
			this.context = context;
		}

		@Nullable R run() throws Exception {
			// Hold the connection before claiming the call, so an invalidation right after the
			// claim cannot close it under the work.
			this.handle.retain();
			if (!this.state.compareAndSet(NEW, RUNNING)) {
				this.handle.release();
				return null;
			}
			DeadlinePool.this.current.set(this.handle);
			try (ContextSnapshot.Scope scope = this.context.setThreadLocals()) {
				return this.callback.doWithConnection(this.handle.connection());
			}
			finally {
				DeadlinePool.this.current.remove();
				this.handle.release();
				if (this.state.compareAndSet(RUNNING, DONE)) {
					DeadlinePool.this.pool.returnObject(this.handle);
				}
				else {
					DeadlinePool.this.abandoned.decrementAndGet();
				}
			}
		}

	}

	/** Makes handles through the user's factory; destroying one is letting go of it. */
	private static final class HandleFactory<T> extends BasePooledObjectFactory<Handle<T>> {

		private final ConnectionFactory<T> factory;

		HandleFactory(ConnectionFactory<T> factory) {
			this.factory = factory;
		}

		@Override
		public Handle<T> create() throws Exception {
			return new Handle<>(this.factory.create(), this.factory);
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
