/**
 * Types shared by every capability of the resilience starter, such as the {@link dev.resilience.Ticker}.
 */
@NullMarked
package dev.resilience;

import org.jspecify.annotations.NullMarked;
