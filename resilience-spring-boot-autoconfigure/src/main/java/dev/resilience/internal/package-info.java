/**
 * Helpers shared by the capabilities of the starter: duration arithmetic and text, listener
 * calls that never let a listener's failure reach the caller, cause chains, and the driver of
 * scheduled asynchronous attempts. <b>Not API:</b> the types are public only so that every
 * capability package can use them; they may change in any release without notice.
 */
@NullMarked
package dev.resilience.internal;

import org.jspecify.annotations.NullMarked;
