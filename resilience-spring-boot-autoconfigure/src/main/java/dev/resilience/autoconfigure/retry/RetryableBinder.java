package dev.resilience.autoconfigure.retry;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.KotlinDetector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.resilience.autoconfigure.support.AnnotatedMethodPointcut;
import dev.resilience.autoconfigure.support.AnnotationAttributeResolver;
import dev.resilience.autoconfigure.support.AttributeOverlay;
import dev.resilience.autoconfigure.support.MethodBinder;
import dev.resilience.autoconfigure.support.ResilienceConfigurationException;
import dev.resilience.autoconfigure.support.MethodExpression;
import dev.resilience.autoconfigure.support.MethodExpressionEvaluator;
import dev.resilience.autoconfigure.support.ProposedSettings;
import dev.resilience.autoconfigure.support.ReturnKind;
import dev.resilience.retry.RetryPolicy;
import dev.resilience.retry.RetryRegistry;
import dev.resilience.retry.Retryable;

/**
 * Reads the {@link Retryable @Retryable} of one method, the method's own or else its type's:
 * looks up the named policy, lays the attributes set on the annotation over it, parses the
 * conditions and finds the fallback method, each mistake failing with a message that names the
 * method.
 */
class RetryableBinder implements MethodBinder<RetryableMethod> {

	private final RetryRegistry registry;

	private final MethodExpressionEvaluator expressions;

	private final AnnotationAttributeResolver attributes;

	RetryableBinder(RetryRegistry registry, @Nullable ConfigurableListableBeanFactory beanFactory) {
		this.registry = registry;
		this.expressions = new MethodExpressionEvaluator(beanFactory);
		this.attributes = new AnnotationAttributeResolver(beanFactory);
	}

	@Override
	public @Nullable RetryableMethod bind(Method method, Class<?> targetClass, ReturnKind kind, ProposedSettings proposed) {
		Retryable annotation = AnnotatedElementUtils.findMergedAnnotation(method, Retryable.class);
		if (annotation == null && AnnotatedMethodPointcut.reachedByTypeLevel(method)) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, Retryable.class);
			if (annotation != null && isFallbackOf(annotation, method)) {
				// The type's annotation names this method as its fallback: it is called, not retried.
				return null;
			}
		}
		if (annotation == null) {
			return null;
		}
		String where = "@Retryable on " + AnnotationAttributeResolver.describe(method);
		String name = this.attributes.resolve(annotation.name(), where + " (name)");
		RetryPolicy policy = policy(annotation, name, where, proposed);
		String retryName = AnnotationAttributeResolver.nameOrMethod(name, method, targetClass);
		if (!annotation.retryIfResult().isBlank() && kind == ReturnKind.FLUX) {
			throw new ResilienceConfigurationException(where + " sets retryIfResult on a method returning a Flux, "
					+ "a stream with no single result to judge; retry on failures (retryOn, retryIf) instead",
					"Remove retryIfResult, and retry on failures (retryOn, retryIf) instead.");
		}
		return new RetryableMethod(this.registry.retry(retryName, policy), name,
				expression(annotation.retryIf(), method, where + " (retryIf)", "exception"),
				expression(annotation.retryIfResult(), method, where + " (retryIfResult)", "result"),
				fallback(annotation, method, targetClass, where));
	}

	/** The named policy, or the defaults, with the attributes set on the annotation laid over it. */
	private RetryPolicy policy(Retryable annotation, String name, String where, ProposedSettings proposed) {
		RetryPolicy base;
		if (name.isBlank()) {
			base = RetryPolicy.builder().build();
		}
		else {
			AnnotationAttributeResolver.checkConfigured(name, this.registry.getNames(), where, "the retry policy",
					"resilience.retries");
			base = proposed.get(name, RetryPolicy.class, this.registry::getPolicy);
		}
		RetryPolicy.Builder builder = base.toBuilder();
		new AttributeOverlay(this.attributes, where).integer(annotation.maxRetries(), builder::maxRetries)
			.duration(annotation.delay(), "delay", builder::delay)
			.one(annotation.backoff(), "backoff", builder::backoff)
			.decimal(annotation.multiplier(), builder::multiplier)
			.duration(annotation.maxDelay(), "maxDelay", builder::maxDelay)
			.one(annotation.jitter(), "jitter", builder::jitter)
			.duration(annotation.maxDuration(), "maxDuration", builder::maxDuration)
			.list(annotation.retryOn(), builder::retryOn)
			.list(annotation.noRetryOn(), builder::noRetryOn);
		try {
			return builder.build();
		}
		catch (IllegalArgumentException ex) {
			throw new ResilienceConfigurationException(where + ": " + ex.getMessage(),
					"Correct the annotation's attribute"
							+ (name.isBlank() ? "" : ", or the property of resilience.retries." + name + ", named above")
							+ ".",
					ex);
		}
	}

	/** A condition over the arguments and the one variable its evaluation sets. */
	private @Nullable MethodExpression expression(String text, Method method, String where, String variable) {
		String resolved = this.attributes.resolve(text, where);
		return resolved.isBlank() ? null : this.expressions.parse(resolved, method, where, Set.of(variable));
	}

	/**
	 * The fallback: the methods of the bean with the same name, the method's parameters and a
	 * trailing exception parameter, and a return type the method's callers accept. Overloads that
	 * differ in the exception type are all kept; a call takes the most specific one for its
	 * failure.
	 */
	private List<Method> fallback(Retryable annotation, Method method, Class<?> targetClass, String where) {
		String name = this.attributes.resolve(annotation.fallbackMethod(), where + " (fallbackMethod)");
		if (name.isBlank()) {
			return List.of();
		}
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		// A suspend function's JVM parameters end with its Continuation; a suspend fallback's too,
		// after the exception parameter.
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		Class<?>[] parameters = method.getParameterTypes();
		if (suspending) {
			parameters = Arrays.copyOf(parameters, parameters.length - 1);
		}
		List<Method> found = new ArrayList<>();
		for (Method candidate : ReflectionUtils.getUniqueDeclaredMethods(userClass)) {
			if (candidate.getName().equals(name) && suspending == KotlinDetector.isSuspendingFunction(candidate)
					&& fitsParameters(candidate, parameters, suspending)) {
				found.add(candidate);
			}
		}
		if (found.isEmpty()) {
			String expected = Arrays.stream(parameters)
				.map(Class::getSimpleName)
				.collect(Collectors.joining(", ", name + "(", ((parameters.length > 0) ? ", " : "") + "<an exception>)"));
			throw new ResilienceConfigurationException(where + " names the fallbackMethod '" + name + "', but "
					+ userClass.getSimpleName() + " has no method " + expected,
					"Declare " + expected + " in " + userClass.getSimpleName()
							+ ", returning what the method returns, or correct fallbackMethod.");
		}
		for (Method fallback : found) {
			Class<?> failure = RetryableMethod.failureType(fallback);
			if (Error.class.isAssignableFrom(failure)) {
				throw new ResilienceConfigurationException(where + " names the fallbackMethod "
						+ AnnotationAttributeResolver.describe(fallback) + ", whose exception parameter "
						+ failure.getSimpleName() + " never reaches it: Errors are thrown, never handed to a fallback",
						"Make the last parameter of " + AnnotationAttributeResolver.describe(fallback)
								+ " an Exception type.");
			}
			if (!fitsReturnType(method.getReturnType(), fallback.getReturnType())) {
				throw new ResilienceConfigurationException(where + " names the fallbackMethod "
						+ AnnotationAttributeResolver.describe(fallback) + ", whose return type "
						+ fallback.getReturnType().getSimpleName() + " does not fit " + method.getReturnType().getSimpleName(),
						"Make " + AnnotationAttributeResolver.describe(fallback) + " return "
								+ method.getReturnType().getSimpleName() + " (or a subtype).");
			}
			ReflectionUtils.makeAccessible(fallback);
		}
		return found;
	}

	/** Whether the method could be a fallback the annotation names: its name, and a trailing exception parameter. */
	private boolean isFallbackOf(Retryable annotation, Method method) {
		String name = this.attributes.resolve(annotation.fallbackMethod(), "@Retryable on "
				+ AnnotationAttributeResolver.describe(method) + " (fallbackMethod)");
		if (name.isBlank() || !method.getName().equals(name)) {
			return false;
		}
		int failure = RetryableMethod.failureIndex(method);
		return failure >= 0 && Throwable.class.isAssignableFrom(method.getParameterTypes()[failure]);
	}

	private static boolean fitsParameters(Method candidate, Class<?>[] parameters, boolean suspending) {
		Class<?>[] candidateParameters = candidate.getParameterTypes();
		return candidateParameters.length == parameters.length + (suspending ? 2 : 1)
				&& Arrays.equals(candidateParameters, 0, parameters.length, parameters, 0, parameters.length)
				&& Throwable.class.isAssignableFrom(candidateParameters[parameters.length]);
	}

	private static boolean fitsReturnType(Class<?> returnType, Class<?> fallbackReturnType) {
		if (returnType == void.class || fallbackReturnType == void.class) {
			return returnType == fallbackReturnType;
		}
		return ClassUtils.isAssignable(returnType, fallbackReturnType);
	}

}
