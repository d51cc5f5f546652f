/**
 * The time seam shared by every capability of the resilience starter: the {@link dev.resilience.Ticker}
 * that algorithms read the time from, and the {@link dev.resilience.Sleeper} that blocking waits go
 * through. Tests pass manual ones to make time exact.
 */
@NullMarked
package dev.resilience;

import org.jspecify.annotations.NullMarked;
