package dev.resilience.ratelimit;

/**
 * How a sliding window counts the calls it admitted.
 */
public enum WindowAlgorithm {

	/**
	 * Keeps one entry per admitted call: exact, memory grows with the window's limit.
	 */
	LOG,

	/**
	 * Keeps a counter for the current and the previous fixed window and weighs the previous one
	 * by how much of it still overlaps the sliding window: approximate, constant memory per key.
	 */
	COUNTER

}
