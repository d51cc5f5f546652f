/**
 * What Spring's AOT processing and GraalVM native images need to know of the starter: the types,
 * methods and resources it reaches by reflection, named in {@code META-INF/spring/aot.factories}.
 */
@NullMarked
package dev.resilience.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
