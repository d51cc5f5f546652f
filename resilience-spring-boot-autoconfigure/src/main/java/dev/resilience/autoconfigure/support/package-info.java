/**
 * Parts every capability's Spring wiring shares: applying an annotation through an advisor
 * ({@link dev.resilience.autoconfigure.support.AnnotatedMethodAdvisor}, with a pointcut whose
 * class filter reads each class once), reading each annotated method once into a binding and
 * checking them all at startup ({@link dev.resilience.autoconfigure.support.AnnotatedMethods}),
 * SpEL evaluation and annotation attribute parsing. A capability plugs in its annotation type, a
 * {@link dev.resilience.autoconfigure.support.MethodBinder} and a
 * {@link dev.resilience.autoconfigure.support.BindingInterceptor}.
 */
@NullMarked
package dev.resilience.autoconfigure.support;

import org.jspecify.annotations.NullMarked;
