package dev.resilience.ratelimit;

import org.jspecify.annotations.Nullable;

/**
 * What an admitted call took, so that it can be given back exactly: its sequence number (naming
 * its window entries and lease), its cost and time, and the bucket before and after it.
 */
final class Ticket {

	long sequence;

	long cost;

	long at;

	KeyState.@Nullable Bucket before;

	KeyState.@Nullable Bucket after;

}
