package dev.resilience.pool;

/**
 * Makes, checks and closes the connections of one pool. Register it as a bean and name the bean in
 * {@code resilience.pools.<name>.factory}.
 *
 * @param <T> the connection type
 */
@FunctionalInterface
public interface ConnectionFactory<T> {

	/**
	 * Makes a new connection, when the pool needs one.
	 * @return the connection
	 * @throws Exception if no connection can be made; the caller that needed it gets this exception
	 */
	T create() throws Exception;

	/**
	 * Tells whether a connection can still be used; asked before a connection is handed out when
	 * {@code validate-on-checkout} is set. A connection that fails (or throws) is destroyed and
	 * another one is taken.
	 * @param connection the connection
	 * @return whether it can be used
	 */
	default boolean validate(T connection) {
		return true;
	}

	/**
	 * Closes a connection the pool no longer keeps. For a connection whose work timed out, this is
	 * called once the work has let go of it, on the thread that ran the work.
	 * @param connection the connection
	 * @throws Exception if closing fails; the connection is dropped all the same
	 */
	default void destroy(T connection) throws Exception {
	}

}
