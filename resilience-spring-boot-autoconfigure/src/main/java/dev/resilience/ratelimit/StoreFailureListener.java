package dev.resilience.ratelimit;

/**
 * Told of every failure of a remote rate-limit store, each one that
 * {@link RateLimiter#getStoreErrors()} counts: a decision, a give-back, a permit's return, a
 * reset or a pause that its server did not answer in time. Called on the thread that learned of the failure
 * (the caller's, the client library's or a timer's), so it must be quick and must not block; one
 * that throws is logged and changes nothing.
 */
@FunctionalInterface
public interface StoreFailureListener {

	/**
	 * Called once per failure.
	 * @param limiter the name of the limiter whose store failed
	 * @param store the store's type, such as {@code redis}
	 * @param operation what failed: {@code decision}, {@code give-back}, {@code permit-return},
	 * {@code reset} or {@code pause}
	 * @param failure the cause
	 */
	void onStoreFailure(String limiter, String store, String operation, Throwable failure);

}
