package dev.resilience.pool;

import java.util.concurrent.CompletionStage;

/**
 * Asynchronous work done with one connection, given to {@link ConnectionPool#withConnectionAsync}:
 * it starts the work and returns a stage that completes when the work is done. The connection is
 * held until that stage completes.
 *
 * @param <T> the connection type
 * @param <R> the result type
 */
@FunctionalInterface
public interface AsyncConnectionCallback<T, R> {

	/**
	 * Starts the work. Called on a thread of the pool's scheduler, which must not be blocked: start
	 * the work and return.
	 * @param connection the connection, held until the returned stage completes
	 * @return the stage of the work; a {@code null} stage is a failure
	 * @throws Exception any failure to start the work, passed on to the caller unchanged
	 */
	CompletionStage<R> doWithConnection(T connection) throws Exception;

}
