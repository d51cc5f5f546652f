package dev.resilience.ratelimit;

/**
 * How a token bucket gains tokens over time.
 */
public enum RefillStrategy {

	/**
	 * Tokens trickle in continuously: with 5 tokens per second, one token arrives every 200 ms.
	 */
	GREEDY,

	/**
	 * All {@code refill-tokens} arrive at once, at the end of each whole {@code refill-period}.
	 * The part of a period already elapsed is kept, so a key's refills stay on the grid that
	 * starts at its first use.
	 */
	INTERVAL

}
