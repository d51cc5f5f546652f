package dev.resilience.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import io.micrometer.context.ContextSnapshotFactory;

import dev.resilience.Ticker;
import dev.resilience.observation.ResilienceObservations;

/**
 * A named pool of connections with one deadline per call, covering both the wait for a
 * connection and the work done with it. The starter registers one per
 * {@code resilience.pools.<name>}, as a bean named after the pool; {@link #builder} makes one
 * without Spring. A pool without a factory ({@link #permits}) holds permits instead of
 * connections: it bounds how many calls run at once, with the same deadline.
 *
 * @param <T> the connection type
 */
public interface ConnectionPool<T> extends AutoCloseable {

	/**
	 * Returns the pool's name.
	 * @return the name
	 */
	String getName();

	/**
	 * Returns the pool's settings.
	 * @return the settings
	 */
	ConnectionPoolSettings getSettings();

	/**
	 * Replaces the pool's settings at run time. A larger {@code max-size} lets waiting callers in
	 * at once; a smaller one takes no connection away, closes those given back while more than it
	 * are out, and hands out no more until fewer than it are out. The pool keeps its idle
	 * connections, within the new sizes. A new {@code timeout} applies to the calls that begin
	 * after the change.
	 * @param settings the new settings
	 */
	void updateSettings(ConnectionPoolSettings settings);

	/**
	 * Returns what the pool holds now.
	 * @return the counts
	 */
	ConnectionPoolStats getStats();

	/**
	 * Returns the connection held by the running {@link WithConnection @WithConnection} method or
	 * {@link #withConnection} callback of this pool, or, on the thread that calls it, by an
	 * asynchronous callback ({@link #withConnectionAsync}) or
	 * {@link ConnectionLease#callWithCurrent} during that call. The connection travels with the
	 * call's context ({@link HeldConnectionAccessor}): into the work of another pool called from
	 * that work, and into every continuation that restores the context while the call runs.
	 * @return the connection
	 * @throws IllegalStateException outside such a method or callback, or in a continuation that
	 * outlives its call (the connection went back to the pool when the call ended)
	 */
	T current();

	/**
	 * Runs work with a connection within one deadline. The wait for a connection takes at most the
	 * timeout; the work gets the time left, on another thread that carries the caller's context.
	 * The connection goes back to the pool when the work returns or throws. A call made inside
	 * work of the same pool uses the connection already held, within the outer deadline.
	 * @param <R> the result type
	 * @param timeout the deadline, checkout and execution together; positive
	 * @param callback the work; what it throws reaches the caller unchanged, checked exceptions
	 * included
	 * @return the callback's result
	 * @throws CheckoutTimeoutException if no connection came in time; the work did not run
	 * @throws OperationTimeoutException at the deadline if the work is still running; the work is
	 * interrupted and its connection is closed once the work lets go of it, never handed out again
	 * @throws java.util.concurrent.CancellationException if the caller is interrupted while waiting
	 * (its interrupt flag is set again)
	 * @throws IllegalStateException if the pool is closed
	 */
	<R> R withConnection(Duration timeout, ConnectionCallback<T, R> callback);

	/**
	 * Runs work with a connection within the pool's own {@code timeout}.
	 * @param <R> the result type
	 * @param callback the work
	 * @return the callback's result
	 * @see #withConnection(Duration, ConnectionCallback)
	 */
	default <R> R withConnection(ConnectionCallback<T, R> callback) {
		return withConnection(getSettings().timeout(), callback);
	}

	/**
	 * Runs asynchronous work with a connection within one deadline, holding no thread while it
	 * waits. Returns at once. The checkout waits in the pool's queue and is served when a
	 * connection is given back or made; the callback is then called on a thread of the pool's
	 * scheduler, with the connection as {@link #current()} and the caller's context restored during
	 * the call, and the connection is held until the stage it returns completes, then given back
	 * exactly once, by a thread of the pool's own (never the thread that completed the stage), before
	 * the returned future completes. A call made inside work of the same pool (where {@link #current()} works) uses
	 * the connection already held, within the outer deadline.
	 * <p>
	 * The returned future completes with the stage's outcome, or fails with
	 * {@link CheckoutTimeoutException} if no connection came in time (the callback never ran),
	 * with {@link OperationTimeoutException} at the deadline if the stage is still pending (the
	 * stage is cancelled and its connection invalidated, never handed out again), with what the
	 * callback or the factory threw, or with {@link IllegalStateException} if the pool is closed.
	 * Cancelling it while it waits for a connection leaves the queue; once the work runs, the
	 * stage is cancelled and its connection invalidated, as the state of a connection whose work
	 * stopped midway is unknown. It is completed on a thread of the pool's scheduler.
	 * @param <R> the result type
	 * @param timeout the deadline, checkout and the stage together; positive
	 * @param callback starts the work
	 * @return the future of the work's outcome
	 * @throws IllegalArgumentException if the timeout is not positive
	 */
	<R> CompletableFuture<R> withConnectionAsync(Duration timeout, AsyncConnectionCallback<T, R> callback);

	/**
	 * Runs asynchronous work with a connection within the pool's own {@code timeout}.
	 * @param <R> the result type
	 * @param callback starts the work
	 * @return the future of the work's outcome
	 * @see #withConnectionAsync(Duration, AsyncConnectionCallback)
	 */
	default <R> CompletableFuture<R> withConnectionAsync(AsyncConnectionCallback<T, R> callback) {
		return withConnectionAsync(getSettings().timeout(), callback);
	}

	/**
	 * Checks a connection out for asynchronous work that ends later, such as a reactive stream,
	 * holding no thread while it waits: {@link #withConnectionAsync} is this lease used for one
	 * stage. Returns at once; the future completes, on a thread of the pool's scheduler, with a
	 * lease once a connection came, or fails with {@link CheckoutTimeoutException} if none came in
	 * time, with what the factory threw, or with {@link IllegalStateException} if the pool is
	 * closed. Cancelling it before it completes leaves the queue (a connection handed out
	 * meanwhile goes back unused). The deadline goes on with the lease: see
	 * {@link ConnectionLease}.
	 * @param timeout the deadline, checkout and the work together; positive
	 * @return the future of the lease, which its holder must end
	 * @throws IllegalArgumentException if the timeout is not positive
	 */
	CompletableFuture<ConnectionLease<T>> checkoutAsync(Duration timeout);

	/**
	 * Closes the pool: idle connections are destroyed, work still running is interrupted, waiting
	 * asynchronous checkouts fail, and further calls fail.
	 */
	@Override
	void close();

	/**
	 * Starts building a pool of connections made by a factory.
	 * @param <T> the connection type
	 * @param name the pool's name
	 * @param factory makes, checks and closes the connections
	 * @return the builder
	 */
	static <T> Builder<T> builder(String name, ConnectionFactory<T> factory) {
		return new Builder<>(name, factory);
	}

	/**
	 * Starts building a permit pool: it bounds how many calls run at once, with the same deadline;
	 * {@link #current()} gives the permit, an opaque object.
	 * @param name the pool's name
	 * @return the builder
	 */
	static Builder<Object> permits(String name) {
		return new Builder<>(name, Object::new);
	}

	/**
	 * Builds a {@link ConnectionPool}.
	 *
	 * @param <T> the connection type
	 */
	final class Builder<T> {

		private final String name;

		private final ConnectionFactory<T> factory;

		private ConnectionPoolSettings settings = ConnectionPoolSettings.builder().build();

		private Ticker ticker = Ticker.system();

		private final List<ConnectionPoolListener> listeners = new ArrayList<>();

		private ResilienceObservations observations = ResilienceObservations.none();

		private ContextSnapshotFactory contextSnapshots = ContextSnapshotFactory.builder().build();

		private ScheduledExecutorService scheduler = WorkerThreads.sharedScheduler();

		private Builder(String name, ConnectionFactory<T> factory) {
			this.name = Objects.requireNonNull(name, "name");
			this.factory = Objects.requireNonNull(factory, "factory");
		}

		/**
		 * Sets the settings; the defaults of {@link ConnectionPoolSettings#builder()} otherwise.
		 * @param settings the settings
		 * @return this builder
		 */
		public Builder<T> settings(ConnectionPoolSettings settings) {
			this.settings = Objects.requireNonNull(settings, "settings");
			return this;
		}

		/**
		 * Sets the clock that measures deadlines; the system clock otherwise.
		 * @param ticker the clock
		 * @return this builder
		 */
		public Builder<T> ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker");
			return this;
		}

		/**
		 * Sets where the checkouts and operations are observed ({@code resilience.pool.checkout}
		 * and {@code resilience.pool.operation}); none by default.
		 * @param observations the observations
		 * @return this builder
		 */
		public Builder<T> observations(ResilienceObservations observations) {
			this.observations = Objects.requireNonNull(observations, "observations");
			return this;
		}

		/**
		 * Adds a listener told of every checkout and operation.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder<T> listener(ConnectionPoolListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener"));
			return this;
		}

		/**
		 * Sets what captures the caller's context (thread locals such as the MDC) and restores it
		 * on the thread that runs the work; otherwise the accessors of the global
		 * {@link io.micrometer.context.ContextRegistry}.
		 * @param contextSnapshots the snapshot factory
		 * @return this builder
		 */
		public Builder<T> contextSnapshots(ContextSnapshotFactory contextSnapshots) {
			this.contextSnapshots = Objects.requireNonNull(contextSnapshots, "contextSnapshots");
			return this;
		}

		/**
		 * Sets the scheduler of the asynchronous calls: it runs their deadlines, calls their
		 * callbacks and completes their futures, and must never be blocked. Otherwise one daemon
		 * thread shared by the pools built without one.
		 * @param scheduler the scheduler, not shut down by the pool
		 * @return this builder
		 */
		public Builder<T> scheduler(ScheduledExecutorService scheduler) {
			this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
			return this;
		}

		/**
		 * Builds the pool, creating its {@code min-idle} connections now.
		 * @return the pool
		 * @throws IllegalStateException if a {@code min-idle} connection cannot be made
		 */
		public ConnectionPool<T> build() {
			ConnectionPool<T> pool = new DeadlinePool<>(this.name, this.factory, this.settings, this.ticker,
					List.copyOf(this.listeners), this.contextSnapshots, this.scheduler);
			return (this.observations != ResilienceObservations.none()) ? new ObservedPool<>(pool, this.observations)
					: pool;
		}

	}

}
