package dev.resilience.autoconfigure.aot;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * For each bean whose class (or a method of it) carries one of the starter's annotations, lets a
 * native image find and invoke its methods by reflection: the advisors look the annotated methods
 * up and invoke them through the proxy, and {@code fallbackMethod}s are found by name.
 */
class ResilienceBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> type = ClassUtils.getUserClass(registeredBean.getBeanClass());
		if (!isAnnotated(type)) {
			return null;
		}
		return (context, code) -> context.getRuntimeHints()
			.reflection()
			.registerType(type, MemberCategory.INVOKE_DECLARED_METHODS, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

	static boolean isAnnotated(Class<?> type) {
		if (hasAnnotation(type)) {
			return true;
		}
		AtomicBoolean found = new AtomicBoolean();
		ReflectionUtils.doWithMethods(type, (method) -> found.set(true), ResilienceBeanRegistrationAotProcessor::hasAnnotation);
		return found.get();
	}

	private static boolean hasAnnotation(AnnotatedElement element) {
		MergedAnnotations annotations = MergedAnnotations.from(element, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY);
		for (Class<? extends Annotation> annotation : ResilienceRuntimeHints.ANNOTATIONS) {
			if (annotations.isPresent(annotation)) {
				return true;
			}
		}
		return false;
	}

}
