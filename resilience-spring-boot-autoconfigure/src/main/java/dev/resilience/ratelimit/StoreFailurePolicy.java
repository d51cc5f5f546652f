package dev.resilience.ratelimit;

/**
 * What a limiter decides when its store cannot: the store is unreachable, or does not answer
 * within its decision timeout. Stores that cannot fail, such as the in-memory one, never use it.
 */
public enum StoreFailurePolicy {

	/** Admit the call (and count the failure): the protected service stays available. */
	FAIL_OPEN,

	/** Reject the call: the limit holds even while it cannot be checked. */
	FAIL_CLOSED

}
