package dev.resilience.retry;

/**
 * How the wait between attempts grows, shared by retries and polling. The {@code n}-th delay
 * (the wait before attempt {@code n + 1}) for a first delay {@code d} is:
 * <ul>
 * <li>{@link #FIXED}: {@code d} every time;</li>
 * <li>{@link #LINEAR}: {@code d * n}, so 10, 20, 30, 40 ms for {@code d = 10ms} (ExWaiter's default);</li>
 * <li>{@link #EXPONENTIAL}: {@code d * multiplier^(n - 1)}, so 1, 2, 4, 8 s for {@code d = 1s} and
 * a multiplier of 2.</li>
 * </ul>
 * Every delay is capped at the policy's maximum delay; see {@link dev.resilience.retry.BackoffPolicy}, which computes them.
 */
public enum Backoff {

	/** The same delay before every retry. */
	FIXED,

	/** The first delay times the number of the retry. */
	LINEAR,

	/** The first delay times the multiplier to the power of the retry number minus one. */
	EXPONENTIAL

}
