package dev.resilience.pool;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.context.ContextSnapshot;
import org.jspecify.annotations.Nullable;

import dev.resilience.internal.Durations;
import dev.resilience.internal.ScheduledAttempts;
import dev.resilience.pool.ConnectionPoolListener.CheckoutOutcome;
import dev.resilience.pool.ConnectionPoolListener.OperationOutcome;

/**
 * One asynchronous checkout of a {@link DeadlinePool}, from its place in the queue to the end of
 * its lease. Everything that can end it (a connection handed out, the deadline, the caller
 * cancelling, the holder ending the lease) moves its state by one compare-and-set, and only the
 * winner touches the connection, so it goes back, or is invalidated, exactly once:
 * <pre>
 * WAITING --pool hands out--&gt; GRANTED --delivered on the scheduler--&gt; HELD --holder--&gt; ENDED
 *    |                           |                                        |
 *    +-- deadline: TIMED_OUT     +-- deadline, delivered too late or      +-- deadline: EXPIRED
 *    +-- cancel, failure: ENDED      cancel: ENDED (given back unused)        (invalidated)
 * </pre>
 * Connections go back on the pool's returning thread and are invalidated on its replacing thread,
 * never on the thread that ends the lease (see {@link DeadlinePool#giveBackLater}).
 * The holder keeps a hold on the {@link Handle} from delivery until it lets go, so a connection
 * invalidated at the deadline is closed only once the holder's work lets go of it, as for
 * blocking calls.
 *
 * @param <T> the connection type
 */
final class DeadlineLease<T> implements ConnectionLease<T> {

	private static final int WAITING = 0;

	private static final int GRANTED = 1;

	private static final int HELD = 2;

	private static final int ENDED = 3;

	private static final int TIMED_OUT = 4;

	private static final int EXPIRED = 5;

	private final DeadlinePool<T> pool;

	private final Duration timeout;

	/** {@link #timeout} in nanoseconds, saturated: a timeout beyond about 292 years is no deadline. */
	private final long timeoutNanos;

	private final long start;

	private final ContextSnapshot context;

	/** The future the caller gets: the lease once it is {@code HELD}. */
	final CompletableFuture<ConnectionLease<T>> checkout = new CompletableFuture<>();

	private final CompletableFuture<Void> expiry = new CompletableFuture<>();

	private final AtomicInteger state = new AtomicInteger(WAITING);

	/** Whether the holder let go of the handle after the deadline had invalidated it. */
	private final AtomicBoolean letGo = new AtomicBoolean();

	private volatile @Nullable Handle<T> handle;

	/** The connections the caller held when it asked, which the holder's work holds too. */
	private final @Nullable HeldConnections outer;

	/** The connection as the holder's work holds it, set with {@link #handle}. */
	private volatile @Nullable HeldConnections held;

	private volatile long granted;

	private volatile @Nullable ScheduledFuture<?> timer;

	DeadlineLease(DeadlinePool<T> pool, Duration timeout, long start, ContextSnapshot context) {
		this.pool = pool;
		this.timeout = timeout;
		this.timeoutNanos = Durations.saturatedNanos(timeout);
		this.start = start;
		this.context = context;
		this.outer = HeldConnections.get();
		this.checkout.whenComplete((lease, ex) -> {
			if (this.checkout.isCancelled()) {
				cancel();
			}
		});
	}

	/** Arms the deadline: one timer for the checkout and the lease. */
	void schedule() {
		long left = this.timeoutNanos - (this.pool.read() - this.start);
		this.timer = this.pool.scheduler().schedule(this::deadline, Math.max(left, 0), TimeUnit.NANOSECONDS);
		if (isOver()) {
			cancelTimer();
		}
	}

	boolean isWaiting() {
		return this.state.get() == WAITING;
	}

	@Override
	public T connection() {
		Handle<T> held = this.handle;
		if (held == null) {
			throw new IllegalStateException("No connection was handed out yet");
		}
		return held.connection();
	}

	@Override
	public Duration remaining() {
		long left = this.timeoutNanos - (this.pool.read() - this.start);
		return Duration.ofNanos(Math.max(left, 0));
	}

	@Override
	public <R> R callWithCurrent(Callable<R> code) throws Exception {
		HeldConnections held = this.held;
		if (held == null) {
			throw new IllegalStateException("No connection was handed out yet");
		}
		try (ContextSnapshot.Scope scope = this.context.setThreadLocals()) {
			return held.call(code);
		}
	}

	@Override
	public CompletableFuture<Void> expiry() {
		CompletableFuture<Void> copy = new CompletableFuture<>();
		this.expiry.whenComplete((none, ex) -> {
			if (ex != null) {
				copy.completeExceptionally(ScheduledAttempts.unwrap(ex));
			}
		});
		return copy;
	}

	/** The deadline's own future, for {@link DeadlinePool#withConnectionAsync}. */
	CompletableFuture<Void> expiryInternal() {
		return this.expiry;
	}

	@Override
	public boolean release(@Nullable Throwable failure) {
		return release(failure, null);
	}

	/**
	 * Ends the lease after the work ended, for {@link DeadlinePool#withConnectionAsync}: the
	 * connection goes back, and then what follows runs on the scheduler.
	 * @param failure what the work failed with, or {@code null}
	 * @param then what follows the give-back, such as passing the outcome on
	 * @return whether this call ended the lease; if not, {@code then} never runs
	 */
	boolean release(@Nullable Throwable failure, @Nullable Runnable then) {
		return end(false, (failure != null) ? OperationOutcome.ERROR : OperationOutcome.SUCCESS, then);
	}

	@Override
	public boolean invalidate() {
		return end(true, null, null);
	}

	/**
	 * Ends a held lease whose work never started, for {@link DeadlinePool#withConnectionAsync}:
	 * the connection goes back as it is, no operation recorded. A lease not held is left as it is.
	 */
	void giveBackUnused() {
		end(false, null, null);
	}

	/**
	 * Ends a held lease whose work was stopped midway, for {@link DeadlinePool#withConnectionAsync}:
	 * as at the deadline, the connection is invalidated at once, which frees its place, but the
	 * holder keeps its hold until it calls {@link #release} or {@link #invalidate}, since work that
	 * was told to stop may still use the connection. No operation is recorded. A lease not held
	 * (never handed out, ended, or expired) is left as it is.
	 */
	void abandon() {
		Handle<T> held = this.handle;
		if (held == null) {
			return;
		}
		// Counted before the holder can see the lease abandoned, so the count never dips below zero.
		this.pool.abandoned(1);
		if (this.state.compareAndSet(HELD, EXPIRED)) {
			this.pool.invalidateLater(held);
			cancelTimer();
			return;
		}
		this.pool.abandoned(-1);
	}

	/**
	 * Ends a held lease: the holder lets go of the handle, then the connection goes back or is
	 * invalidated, on a thread of the pool's, never the holder's. After the deadline, only lets go.
	 */
	private boolean end(boolean invalidate, @Nullable OperationOutcome outcome, @Nullable Runnable then) {
		Handle<T> held = this.handle;
		if (held == null) {
			return false;
		}
		if (this.state.compareAndSet(HELD, ENDED)) {
			nonNull(this.held).end();
			held.release();
			if (outcome != null) {
				this.pool.operation(outcome, this.granted);
			}
			if (invalidate) {
				this.pool.invalidateLater(held);
			}
			else {
				this.pool.giveBackLater(held, then);
			}
			cancelTimer();
			return true;
		}
		if (this.state.get() == EXPIRED && this.letGo.compareAndSet(false, true)) {
			nonNull(this.held).end();
			this.pool.letGo(held);
		}
		return false;
	}

	/**
	 * Offers a connection to this waiting checkout, on the pool's borrowing thread.
	 * @return whether this checkout took it; if not, the pool offers it to the next
	 */
	boolean grant(Handle<T> offered) {
		long waited = this.pool.read() - this.start;
		if (waited >= this.timeoutNanos) {
			// The deadline is here: no time is left for the work, as for a blocking checkout.
			timeOut(waited);
			return false;
		}
		this.handle = offered;
		this.held = HeldConnections.inside(this.outer, this.pool, offered);
		this.granted = this.start + waited;
		if (!this.state.compareAndSet(WAITING, GRANTED)) {
			return false;
		}
		this.pool.dequeued(this, false);
		this.pool.onScheduler(this::deliver);
		return true;
	}

	/**
	 * Hands the lease to the caller, on the scheduler. The checkout counts as acquired only now: a
	 * connection that reaches the scheduler after the deadline (its task ran late, ahead of the
	 * deadline's own) never starts the work; it goes back unused and the checkout times out, as a
	 * blocking checkout that got its connection too late.
	 */
	private void deliver() {
		Handle<T> held = this.handle;
		if (held == null) {
			return;
		}
		long elapsed = this.pool.read() - this.start;
		if (elapsed >= this.timeoutNanos) {
			if (this.state.compareAndSet(GRANTED, ENDED)) {
				tooLate(held, elapsed);
				cancelTimer();
			}
			return;
		}
		// Hold the connection before claiming it, so an invalidation right after the claim cannot
		// close it under the holder. Closed already: the checkout ended, and the claim would fail.
		if (!held.retainIfOpen()) {
			return;
		}
		if (!this.state.compareAndSet(GRANTED, HELD)) {
			held.release();
			return;
		}
		this.pool.checkout(CheckoutOutcome.ACQUIRED, this.granted - this.start);
		if (!this.checkout.complete(this)) {
			// Cancelled by the caller in the meantime: the connection was never used.
			end(false, null, null);
		}
	}

	/** A connection handed out but not delivered by the deadline goes back unused; the checkout times out. */
	private void tooLate(Handle<T> held, long elapsed) {
		this.pool.checkout(CheckoutOutcome.TIMEOUT, elapsed);
		CheckoutTimeoutException timeout = new CheckoutTimeoutException(this.pool.getName(), this.timeout,
				Duration.ofNanos(elapsed));
		this.pool.giveBackLater(held, () -> this.checkout.completeExceptionally(timeout));
	}

	/** Fails a waiting checkout, such as with the factory's exception or because the pool closed. */
	void fail(Throwable failure) {
		if (this.state.compareAndSet(WAITING, ENDED)) {
			this.pool.dequeued(this, true);
			this.pool.onScheduler(() -> this.checkout.completeExceptionally(failure));
			cancelTimer();
		}
	}

	/** The caller cancelled the future of the checkout. */
	private void cancel() {
		if (this.state.compareAndSet(WAITING, ENDED)) {
			this.pool.dequeued(this, true);
			cancelTimer();
		}
		else if (this.state.compareAndSet(GRANTED, ENDED)) {
			this.pool.giveBackLater(nonNull(this.handle), null);
			cancelTimer();
		}
		// HELD: delivery found the future cancelled and gives the connection back itself.
	}

	/** The deadline, on the scheduler. */
	private void deadline() {
		long elapsed = this.pool.read() - this.start;
		if (elapsed < this.timeoutNanos) {
			// Early by the pool's clock: wait for the rest.
			if (!isOver()) {
				schedule();
			}
			return;
		}
		while (true) {
			int current = this.state.get();
			if (current == WAITING) {
				// Timed out, or moved on meanwhile: the next round sees which.
				timeOut(elapsed);
			}
			else if (current == GRANTED) {
				if (this.state.compareAndSet(GRANTED, ENDED)) {
					// Handed out but not yet delivered: the work never started.
					tooLate(nonNull(this.handle), elapsed);
					return;
				}
			}
			else if (current == HELD) {
				// Counted before the holder can see the lease expired, so the count never dips
				// below zero.
				this.pool.abandoned(1);
				if (this.state.compareAndSet(HELD, EXPIRED)) {
					this.pool.invalidateLater(nonNull(this.handle));
					this.pool.operation(OperationOutcome.TIMEOUT, this.granted);
					this.expiry.completeExceptionally(operationTimeout(elapsed));
					return;
				}
				this.pool.abandoned(-1);
			}
			else {
				return;
			}
		}
	}

	private void timeOut(long waited) {
		if (!this.state.compareAndSet(WAITING, TIMED_OUT)) {
			return;
		}
		this.pool.dequeued(this, true);
		cancelTimer();
		this.pool.checkout(CheckoutOutcome.TIMEOUT, waited);
		CheckoutTimeoutException timeout = new CheckoutTimeoutException(this.pool.getName(), this.timeout,
				Duration.ofNanos(waited));
		this.pool.onScheduler(() -> this.checkout.completeExceptionally(timeout));
	}

	private OperationTimeoutException operationTimeout(long elapsed) {
		return new OperationTimeoutException(this.pool.getName(), this.timeout, Duration.ofNanos(elapsed));
	}

	private boolean isOver() {
		int current = this.state.get();
		return current == ENDED || current == TIMED_OUT || current == EXPIRED;
	}

	/**
	 * Cancels the deadline's timer, always after the step that ended the lease counted it: with the
	 * scheduler removing cancelled tasks, cancelling takes its queue's lock, the one step here that
	 * can wait on another thread or fail (on a thread that must not block, under BlockHound), and
	 * it must not leave the lease ended but still counted as waiting or its connection out.
	 */
	private void cancelTimer() {
		ScheduledFuture<?> scheduled = this.timer;
		if (scheduled != null) {
			scheduled.cancel(false);
		}
	}

	private static <H> H nonNull(@Nullable H handle) {
		if (handle == null) {
			throw new IllegalStateException("No connection was handed out");
		}
		return handle;
	}

}
