package dev.resilience.pool;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * One connection as the pool holds it, with a count of its holders: the pool, until it destroys
 * the handle, and the work running with it. The connection is destroyed through the factory when
 * the last holder lets go, so a connection invalidated at the deadline while its work still runs
 * frees its place in the pool at once but is closed only once the work ends, never under it.
 *
 * @param <T> the connection type
 */
final class Handle<T> {

	private final T connection;

	private final ConnectionFactory<T> factory;

	/** The pool holds the handle from its creation. */
	private final AtomicInteger holders = new AtomicInteger(1);

	Handle(T connection, ConnectionFactory<T> factory) {
		this.connection = connection;
		this.factory = factory;
	}

	T connection() {
		return this.connection;
	}

	/**
	 * Called by the work before it uses the connection: holds it unless it is closed already. Work
	 * that comes late (a delivery, or a task that got a thread only after its caller stopped
	 * waiting) may find its checkout ended and the connection since handed on, invalidated and
	 * closed; holding it then and letting go would close it a second time.
	 * @return whether the connection is held now
	 */
	boolean retainIfOpen() {
		int count = this.holders.get();
		while (count > 0) {
			if (this.holders.compareAndSet(count, count + 1)) {
				return true;
			}
			count = this.holders.get();
		}
		return false;
	}

	/**
	 * Called by the work when it ends, and by the pool when it destroys the handle: the last one
	 * closes the connection.
	 */
	void release() {
		if (this.holders.decrementAndGet() == 0) {
			try {
				this.factory.destroy(this.connection);
			}
			catch (Exception ex) {
				// A connection that fails to close is gone all the same: the pool no longer holds
				// it, and the failure must not replace the outcome of a call that merely let go.
			}
		}
	}

}
