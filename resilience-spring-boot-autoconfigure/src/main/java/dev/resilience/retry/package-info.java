/**
 * Retrying: the {@link dev.resilience.retry.Backoff} by which delays grow and the
 * {@link dev.resilience.retry.BackoffPolicy} that yields them, shared with polling.
 */
@NullMarked
package dev.resilience.retry;

import org.jspecify.annotations.NullMarked;
