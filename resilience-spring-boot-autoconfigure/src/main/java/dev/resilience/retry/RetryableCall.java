package dev.resilience.retry;

import org.jspecify.annotations.Nullable;

/**
 * One attempt of a call that {@link Retry} repeats.
 *
 * @param <T> the result
 */
@FunctionalInterface
public interface RetryableCall<T extends @Nullable Object> {

	/**
	 * Makes one attempt.
	 * @return the result
	 * @throws Throwable whatever the attempt throws
	 */
	T call() throws Throwable;

}
