/**
 * Polling: waiting in production code until a condition is met. A
 * {@link dev.resilience.poll.Poller} calls a supplier until a predicate accepts its value, with
 * delays from the {@link dev.resilience.retry.BackoffPolicy} retries use too, a number of attempts
 * or a timeout, and a full {@link dev.resilience.poll.PollHistory}; it blocks
 * ({@code await}), completes a future from a scheduler ({@code awaitAsync}), or makes one attempt
 * at a time over an immutable {@link dev.resilience.poll.PollState} ({@code pollOnce}), the
 * ExWaiter {@code poll_once} idea. {@link dev.resilience.poll.PollUntil @PollUntil} does the same
 * for an annotated method.
 */
@NullMarked
package dev.resilience.poll;

import org.jspecify.annotations.NullMarked;
