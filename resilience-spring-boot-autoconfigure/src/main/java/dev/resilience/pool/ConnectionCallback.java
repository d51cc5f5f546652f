package dev.resilience.pool;

/**
 * Work done with one connection, given to {@link ConnectionPool#withConnection}.
 *
 * @param <T> the connection type
 * @param <R> the result type
 */
@FunctionalInterface
public interface ConnectionCallback<T, R> {

	/**
	 * Does the work.
	 * @param connection the connection, held for the duration of this call only
	 * @return the result
	 * @throws Exception any failure, passed on to the caller unchanged
	 */
	R doWithConnection(T connection) throws Exception;

}
