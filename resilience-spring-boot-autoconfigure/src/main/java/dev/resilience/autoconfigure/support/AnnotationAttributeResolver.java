package dev.resilience.autoconfigure.support;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.ClassUtils;

/**
 * Reads the string attributes of the resilience annotations: resolves {@code ${...}}
 * placeholders and parses durations in Spring Boot's format ({@code 250ms}, {@code 5s},
 * {@code PT5S}), failing with a message that names the annotated method.
 */
public final class AnnotationAttributeResolver {

	private static final String DURATION_ACTION = "Write a duration that is not negative, such as 250ms, 5s, 1m or PT5S, "
			+ "or a ${...} placeholder that resolves to one.";

	private final @Nullable ConfigurableBeanFactory beanFactory;

	/**
	 * Creates a resolver.
	 * @param beanFactory resolves placeholders, or {@code null} to take values literally
	 */
	public AnnotationAttributeResolver(@Nullable ConfigurableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Resolves {@code ${...}} placeholders in an attribute.
	 * @param value the attribute's value
	 * @param where the attribute and method, for the error message
	 * @return the resolved value
	 * @throws IllegalStateException if a placeholder cannot be resolved
	 */
	public String resolve(String value, String where) {
		if (this.beanFactory == null || !value.contains("${")) {
			return value;
		}
		try {
			String resolved = this.beanFactory.resolveEmbeddedValue(value);
			return (resolved != null) ? resolved : "";
		}
		catch (IllegalArgumentException ex) {
			throw new ResilienceConfigurationException("Cannot resolve '" + value + "' of " + where + ": " + ex.getMessage(),
					"Define the property the placeholder names, or give the placeholder a default: ${name:default}.", ex);
		}
	}

	/**
	 * Resolves and parses a duration attribute.
	 * @param value the attribute's value, not empty
	 * @param where the attribute and method, for the error message
	 * @return the duration, never negative
	 * @throws IllegalStateException if the value is not a duration or is negative
	 */
	public Duration duration(String value, String where) {
		String resolved = resolve(value, where).trim();
		Duration duration;
		try {
			duration = DurationStyle.detectAndParse(resolved);
		}
		catch (IllegalArgumentException ex) {
			throw new ResilienceConfigurationException("'" + resolved + "' of " + where
					+ " is not a duration; use a form such as 250ms, 5s, 1m or PT5S", DURATION_ACTION, ex);
		}
		if (duration.isNegative()) {
			throw new ResilienceConfigurationException("'" + resolved + "' of " + where + " must not be negative",
					DURATION_ACTION);
		}
		return duration;
	}

	/**
	 * Returns the name an annotation gives, or for an unnamed one the method's:
	 * {@code ClassName.method}, the class being the bean's own (not a proxy's, not the class that
	 * declares an inherited method), so that two beans sharing a method keep their meters apart.
	 * @param name the resolved {@code name} attribute, blank when unnamed
	 * @param method the annotated method
	 * @param targetClass the class of the bean
	 * @return the name
	 */
	public static String nameOrMethod(String name, Method method, Class<?> targetClass) {
		return name.isBlank() ? ClassUtils.getUserClass(targetClass).getSimpleName() + "." + method.getName() : name;
	}

	/**
	 * Checks that an annotation names something configured, listing what is when it does not.
	 * @param name the name on the annotation
	 * @param configured the configured names
	 * @param where the annotation and method, for the message
	 * @param what what is named, such as {@code the rate limiter}
	 * @param prefix the properties it is configured under, such as {@code resilience.rate-limiters}
	 * @throws ResilienceConfigurationException naming the method, the name and the configured
	 * names, with the closest of them when the name looks misspelled
	 */
	public static void checkConfigured(String name, Collection<String> configured, String where, String what,
			String prefix) {
		if (!configured.contains(name)) {
			String closest = ClosestName.of(name, configured);
			String action = ((closest != null) ? "Did you mean '" + closest + "'? " : "")
					+ (configured.isEmpty() ? "Nothing is configured under " + prefix + "; "
							: "Name one of " + configured + " in the annotation, or ")
					+ "configure " + prefix + "." + name + ".";
			throw new ResilienceConfigurationException(where + " names " + what + " '" + name
					+ "', which is not configured; configured under " + prefix + " are " + configured, action);
		}
	}

	/**
	 * Describes a method for messages: {@code PartnerClient.fetch(String, long)}.
	 * @param method the method
	 * @return the description
	 */
	public static String describe(Method method) {
		return method.getDeclaringClass().getSimpleName() + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
	}

}
