/**
 * Parts every capability's Spring wiring shares: SpEL evaluation and annotation attribute parsing.
 */
@NullMarked
package dev.resilience.autoconfigure.support;

import org.jspecify.annotations.NullMarked;
