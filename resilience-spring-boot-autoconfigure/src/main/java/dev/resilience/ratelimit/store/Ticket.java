package dev.resilience.ratelimit.store;

import org.jspecify.annotations.Nullable;

/**
 * What an admitted call took, so that it can be given back exactly: its sequence number (naming
 * its window entries and lease), its cost and time, and the bucket before and after it.
 *
 * @param state the key's state the call was decided on
 * @param sequence the call's sequence number, 0 for a bucket-only limiter
 * @param cost the call's cost
 * @param at when the call proceeds
 * @param before the key's bucket before the call, {@code null} without one
 * @param after the key's bucket after the call, {@code null} without one
 */
record Ticket(KeyState state, long sequence, long cost, long at, KeyState.@Nullable Bucket before, KeyState.@Nullable Bucket after) {

}
