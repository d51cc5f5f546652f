package dev.resilience.pool;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.resilience.internal.ScheduledAttempts;
import dev.resilience.observation.ResilienceObservation;
import dev.resilience.observation.ResilienceObservations;

/**
 * A pool whose calls are observed: {@code resilience.pool.checkout} from the call until its work
 * starts with a connection (or the checkout fails), then {@code resilience.pool.operation} until
 * the caller has the outcome, the work running in the operation's scope so that what it observes
 * is the operation's child. A lease taken with {@link #checkoutAsync} has its checkout observed
 * only. Everything else is the pool's; nothing is made when nothing is observed.
 */
final class ObservedPool<T> implements ConnectionPool<T> {

	private final ConnectionPool<T> pool;

	private final ResilienceObservations observations;

	ObservedPool(ConnectionPool<T> pool, ResilienceObservations observations) {
		this.pool = pool;
		this.observations = observations;
	}

	@Override
	public String getName() {
		return this.pool.getName();
	}

	@Override
	public ConnectionPoolSettings getSettings() {
		return this.pool.getSettings();
	}

	@Override
	public void updateSettings(ConnectionPoolSettings settings) {
		this.pool.updateSettings(settings);
	}

	@Override
	public ConnectionPoolStats getStats() {
		return this.pool.getStats();
	}

	@Override
	public T current() {
		return this.pool.current();
	}

	@Override
	public <R> R withConnection(Duration timeout, ConnectionCallback<T, R> callback) {
		Objects.requireNonNull(callback, "callback");
		if (this.observations.isNoop()) {
			return this.pool.withConnection(timeout, callback);
		}
		ObservedCall call = new ObservedCall();
		R result;
		try {
			result = this.pool.withConnection(timeout, (connection) -> {
				Observation operation = call.acquired();
				try (Observation.Scope scope = operation.openScope()) {
					return callback.doWithConnection(connection);
				}
			});
		}
		catch (Throwable ex) {
			// The pool rethrows the work's checked exceptions unchanged.
			call.ended(ex);
			throw ex;
		}
		call.ended(null);
		return result;
	}

	@Override
	public <R> CompletableFuture<R> withConnectionAsync(Duration timeout, AsyncConnectionCallback<T, R> callback) {
		Objects.requireNonNull(callback, "callback");
		if (this.observations.isNoop()) {
			return this.pool.withConnectionAsync(timeout, callback);
		}
		ObservedCall call = new ObservedCall();
		CompletableFuture<R> result = this.pool.withConnectionAsync(timeout, (connection) -> {
			Observation operation = call.acquired();
			try (Observation.Scope scope = operation.openScope()) {
				return callback.doWithConnection(connection);
			}
		});
		result.whenComplete((value, failure) -> call.ended(failure));
		return result;
	}

	@Override
	public CompletableFuture<ConnectionLease<T>> checkoutAsync(Duration timeout) {
		if (this.observations.isNoop()) {
			return this.pool.checkoutAsync(timeout);
		}
		Observation checkout = this.observations.start(ResilienceObservation.POOL_CHECKOUT, getName(), null, null);
		CompletableFuture<ConnectionLease<T>> lease = this.pool.checkoutAsync(timeout);
		lease.whenComplete((value, failure) -> stopCheckout(checkout, failure));
		return lease;
	}

	@Override
	public void close() {
		this.pool.close();
	}

	@Override
	public String toString() {
		return this.pool.toString();
	}

	private static void stopCheckout(Observation checkout, @Nullable Throwable failure) {
		Throwable cause = (failure != null) ? ScheduledAttempts.unwrap(failure) : null;
		if (cause == null) {
			ResilienceObservations.stop(checkout, "acquired", null);
		}
		else if (cause instanceof CheckoutTimeoutException) {
			ResilienceObservations.stop(checkout, "timeout", cause);
		}
		else if (cause instanceof CancellationException) {
			ResilienceObservations.stop(checkout, "cancelled", null);
		}
		else {
			ResilienceObservations.stop(checkout, "error", cause);
		}
	}

	/**
	 * One observed call: its checkout, started by the caller, ends when the work starts with a
	 * connection, on a worker or the scheduler; the operation then ends when the caller has the
	 * outcome. The two ends may race when the deadline passes as the work starts.
	 */
	private final class ObservedCall {

		/** The caller's observation, the parent of both: the operation starts on another thread. */
		private final @Nullable Observation parent;

		/** Guarded by this, as the two below. */
		private @Nullable Observation checkout;

		private @Nullable Observation operation;

		private boolean ended;

		ObservedCall() {
			ResilienceObservations observations = ObservedPool.this.observations;
			this.parent = observations.current();
			this.checkout = observations.start(ResilienceObservation.POOL_CHECKOUT, getName(), null, this.parent);
		}

		/** The work starts: the checkout ends, the operation starts, unless the caller has its outcome. */
		Observation acquired() {
			Observation checkout;
			synchronized (this) {
				checkout = this.checkout;
				if (this.ended || checkout == null) {
					return Observation.NOOP;
				}
				this.checkout = null;
			}
			ResilienceObservations.stop(checkout, "acquired", null);
			Observation operation = ObservedPool.this.observations.start(ResilienceObservation.POOL_OPERATION, getName(),
					null, this.parent);
			synchronized (this) {
				if (!this.ended) {
					this.operation = operation;
					return operation;
				}
			}
			// The caller had its outcome meanwhile: a deadline that passed as the work started.
			ResilienceObservations.stop(operation, "timeout", null);
			return Observation.NOOP;
		}

		/** The caller has the outcome. */
		void ended(@Nullable Throwable failure) {
			Observation checkout;
			Observation operation;
			synchronized (this) {
				this.ended = true;
				checkout = this.checkout;
				operation = this.operation;
				this.checkout = null;
				this.operation = null;
			}
			Throwable cause = (failure != null) ? ScheduledAttempts.unwrap(failure) : null;
			if (checkout != null) {
				if (!(cause instanceof OperationTimeoutException)) {
					stopCheckout(checkout, cause);
					return;
				}
				// The connection came but the deadline passed before the work started.
				ResilienceObservations.stop(checkout, "acquired", null);
				operation = ObservedPool.this.observations.start(ResilienceObservation.POOL_OPERATION, getName(), null,
						this.parent);
			}
			if (operation != null) {
				if (cause == null) {
					ResilienceObservations.stop(operation, "success", null);
				}
				else if (cause instanceof OperationTimeoutException) {
					ResilienceObservations.stop(operation, "timeout", cause);
				}
				else if (cause instanceof CancellationException) {
					ResilienceObservations.stop(operation, "cancelled", null);
				}
				else {
					ResilienceObservations.stop(operation, "error", cause);
				}
			}
		}

	}

}
