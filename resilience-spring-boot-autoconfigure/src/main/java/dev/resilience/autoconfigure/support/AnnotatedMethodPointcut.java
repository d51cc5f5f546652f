package dev.resilience.autoconfigure.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ConcurrentReferenceHashMap;
import org.springframework.util.ReflectionUtils;

/**
 * Matches the methods one annotation applies to, reading annotations only (no configuration),
 * so proxies can be made before anything the annotation names exists. The annotation applies to
 * a method that carries it, or inherits it from an interface or overridden method, and to every
 * public instance method of a class that carries it on its type or a supertype, except
 * {@code toString}, {@code equals} and {@code hashCode}.
 * <p>
 * Its class filter first tells whether a class could have such a method at all: the class, a
 * superclass or an interface carries the annotation on the type or on a method. That answer is
 * cached per class, so making proxies for an application's beans reads each class once and
 * the methods of classes without the annotation are never searched.
 */
public final class AnnotatedMethodPointcut extends StaticMethodMatcherPointcut {

	private final Class<? extends Annotation> annotationType;

	private final Map<Class<?>, Presence> presence = new ConcurrentReferenceHashMap<>();

	/**
	 * Creates the pointcut.
	 * @param annotationType the annotation, repeatable or not
	 */
	public AnnotatedMethodPointcut(Class<? extends Annotation> annotationType) {
		this.annotationType = annotationType;
		setClassFilter(this::isCandidateClass);
	}

	/**
	 * Returns the annotation this pointcut matches.
	 * @return the annotation type
	 */
	public Class<? extends Annotation> getAnnotationType() {
		return this.annotationType;
	}

	/**
	 * Returns whether the class, a superclass or an interface carries the annotation on the
	 * type or on a method; cached per class.
	 * @param clazz the class of a bean, or a JDK proxy class
	 * @return whether a method of the class may be annotated
	 */
	public boolean isCandidateClass(Class<?> clazz) {
		return presence(clazz) != Presence.NONE;
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		Presence presence = presence(targetClass);
		if (presence == Presence.NONE) {
			return false;
		}
		Method specific = specificMethod(method, targetClass);
		return (presence == Presence.TYPE && reachedByTypeLevel(specific))
				|| MergedAnnotations.from(specific, SearchStrategy.TYPE_HIERARCHY).isPresent(this.annotationType);
	}

	/**
	 * Returns the method the annotations of a call are read from: the most specific one of the
	 * target class, or the interface method itself for a JDK proxy made elsewhere (such as an
	 * HTTP interface client), whose own methods are final stand-ins.
	 * @param method the invoked method
	 * @param targetClass the class of the target bean
	 * @return the method to read annotations from
	 */
	public static Method specificMethod(Method method, Class<?> targetClass) {
		return Proxy.isProxyClass(targetClass) ? method : AopUtils.getMostSpecificMethod(method, targetClass);
	}

	/**
	 * Returns whether a type-level annotation reaches the method: public instance methods do,
	 * but not {@code toString}, {@code equals} and {@code hashCode}.
	 * @param method the method
	 * @return whether a type-level annotation applies to it
	 */
	public static boolean reachedByTypeLevel(Method method) {
		int modifiers = method.getModifiers();
		return Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers) && !ReflectionUtils.isObjectMethod(method);
	}

	private Presence presence(Class<?> clazz) {
		return this.presence.computeIfAbsent(clazz, this::findPresence);
	}

	private Presence findPresence(Class<?> clazz) {
		if (!AnnotationUtils.isCandidateClass(clazz, this.annotationType)) {
			return Presence.NONE;
		}
		if (MergedAnnotations.from(clazz, SearchStrategy.TYPE_HIERARCHY).isPresent(this.annotationType)) {
			return Presence.TYPE;
		}
		Deque<Class<?>> types = new ArrayDeque<>(List.of(clazz));
		Set<Class<?>> seen = new HashSet<>();
		while (!types.isEmpty()) {
			Class<?> type = types.poll();
			if (type == Object.class || !seen.add(type)) {
				continue;
			}
			if (hasAnnotatedMethod(type)) {
				return Presence.METHODS;
			}
			if (type.getSuperclass() != null) {
				types.add(type.getSuperclass());
			}
			types.addAll(Arrays.asList(type.getInterfaces()));
		}
		return Presence.NONE;
	}

	private boolean hasAnnotatedMethod(Class<?> type) {
		for (Method method : ReflectionUtils.getDeclaredMethods(type)) {
			if (MergedAnnotations.from(method, SearchStrategy.DIRECT).isPresent(this.annotationType)) {
				return true;
			}
		}
		return false;
	}

	/** Where a class's hierarchy carries the annotation. */
	private enum Presence {

		/** Nowhere: no method of the class is matched. */
		NONE,

		/** On some methods only. */
		METHODS,

		/** On the type or a supertype, so every public method is matched. */
		TYPE

	}

}
