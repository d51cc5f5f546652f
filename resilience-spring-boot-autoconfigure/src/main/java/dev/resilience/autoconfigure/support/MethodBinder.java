package dev.resilience.autoconfigure.support;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * A capability's reader of its annotations: turns the annotations that apply to one method into
 * an immutable binding, the per-method work done once (names looked up, values checked,
 * expressions parsed), so that a call only uses it. Called once per method and target class, at
 * startup for singleton beans, and again with the settings a run-time change proposes, before
 * the change is made.
 *
 * @param <B> the binding
 */
@FunctionalInterface
public interface MethodBinder<B> {

	/**
	 * Reads and checks the annotations of one method.
	 * @param method the method to read, as {@link AnnotatedMethodPointcut#specificMethod} gives it;
	 * its own annotations apply, found through its interfaces and overridden methods too
	 * @param targetClass the class of the target bean, whose type-level annotations apply when
	 * {@link AnnotatedMethodPointcut#reachedByTypeLevel(Method)}
	 * @param kind how the method delivers its outcome, read once by {@link AnnotatedMethods}
	 * @param proposed settings to read in place of the registry's, or {@link ProposedSettings#NONE}
	 * @return the binding, or {@code null} when no annotation applies after all
	 * @throws ResilienceConfigurationException naming the method when an annotation is wrong, and
	 * saying what to change
	 */
	@Nullable B bind(Method method, Class<?> targetClass, ReturnKind kind, ProposedSettings proposed);

}
