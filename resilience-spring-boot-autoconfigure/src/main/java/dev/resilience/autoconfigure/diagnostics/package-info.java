/**
 * Reports the starter's configuration mistakes the Spring Boot way: a failure analyzer that turns
 * them into the "APPLICATION FAILED TO START" report, naming the property or the annotated method
 * and saying what to change.
 */
@NullMarked
package dev.resilience.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
