/**
 * Spring wiring of polling: {@code resilience.polls.*}, the advisor that applies
 * {@link dev.resilience.poll.PollUntil @PollUntil}, and its meters.
 */
@NullMarked
package dev.resilience.autoconfigure.poll;

import org.jspecify.annotations.NullMarked;
