package dev.resilience.internal;

/**
 * Whether a call of any connection pool has held a connection in this class loader. Until one
 * has, no thread holds a connection, and what carries held connections with a caller's context
 * has nothing to read, set or clear: context-propagation does that for every registered accessor
 * around every continuation of every asynchronous call, which cost the starter's async calls
 * about a third of their throughput in applications without a pool (AsyncCallBenchmark).
 */
public final class ConnectionsHeld {

	private static volatile boolean ever;

	private ConnectionsHeld() {
	}

	/**
	 * Returns whether a pool's call has held a connection.
	 * @return {@code true} once one has, for good
	 */
	public static boolean ever() {
		return ever;
	}

	/** Notes that a pool's call holds a connection. */
	public static void note() {
		if (!ever) {
			ever = true; // once: a volatile write on every call would cost the pools
		}
	}

}
