/**
 * Retrying: {@link dev.resilience.retry.Retryable @Retryable}, the
 * {@link dev.resilience.retry.RetryPolicy} and the {@link dev.resilience.retry.Retry} that runs
 * calls under it, the delay sequence ({@link dev.resilience.retry.Backoff},
 * {@link dev.resilience.retry.BackoffPolicy}, shared with polling, and
 * {@link dev.resilience.retry.Jitter}), Retry-After, the retry budget and the history of attempts.
 */
@NullMarked
package dev.resilience.retry;

import org.jspecify.annotations.NullMarked;
