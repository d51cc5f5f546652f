package dev.resilience.pool;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * A connection checked out by {@link ConnectionPool#checkoutAsync}, held within the call's
 * deadline until its holder ends the lease. The first of these ends it, and the others then do
 * nothing: {@link #release()} or {@link #release(Throwable)} gives the connection back,
 * {@link #invalidate()} has it closed and replaced (both on a thread of the pool's own, shortly
 * after, never on the caller's thread), and the deadline, if it comes first,
 * invalidates it and fails {@link #expiry()} with {@link OperationTimeoutException}. After the
 * deadline the holder still calls one of them when its work lets go of the connection, which is
 * then closed.
 *
 * @param <T> the connection type
 */
public interface ConnectionLease<T> {

	/**
	 * Returns the connection.
	 * @return the connection
	 */
	T connection();

	/**
	 * Returns the time left until the deadline, which covers the checkout and the work.
	 * @return the time left, zero once the deadline has passed
	 */
	Duration remaining();

	/**
	 * Runs code with this lease's connection as {@link ConnectionPool#current()} and the context
	 * captured when the checkout was asked for (such as the MDC) restored, on the calling thread.
	 * Both are cleared again when the code returns.
	 * @param <R> the result type
	 * @param code the code, such as the start of asynchronous work
	 * @return what the code returned
	 * @throws Exception what the code threw
	 */
	<R> R callWithCurrent(Callable<R> code) throws Exception;

	/**
	 * Returns a future that fails with {@link OperationTimeoutException} at the deadline if the
	 * lease is still held then, its connection invalidated; it never completes otherwise. Each call
	 * returns a new future, which the caller may cancel without effect on the lease.
	 * @return the future of the deadline
	 */
	CompletableFuture<Void> expiry();

	/**
	 * Ends the lease after the work succeeded: the connection goes back to the pool and the
	 * operation is recorded as a success.
	 * @return whether this call ended the lease, {@code false} if it had ended already (the
	 * deadline passed first, say)
	 */
	default boolean release() {
		return release(null);
	}

	/**
	 * Ends the lease after the work ended: the connection goes back to the pool and the operation
	 * is recorded as a success or, with a failure, as an error.
	 * @param failure what the work failed with, or {@code null} if it succeeded
	 * @return whether this call ended the lease
	 */
	boolean release(@Nullable Throwable failure);

	/**
	 * Ends the lease when the state of the connection is unknown, such as after the work was
	 * cancelled midway: the connection is closed, never handed out again, and the pool makes a
	 * replacement when needed. No operation is recorded.
	 * @return whether this call ended the lease
	 */
	boolean invalidate();

}
