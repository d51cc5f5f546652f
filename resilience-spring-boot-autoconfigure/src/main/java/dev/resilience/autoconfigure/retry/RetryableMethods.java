package dev.resilience.autoconfigure.retry;

import java.util.SortedMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import dev.resilience.autoconfigure.support.AnnotatedMethods;
import dev.resilience.retry.RetryPolicy;
import dev.resilience.retry.RetryRegistry;
import dev.resilience.retry.Retryable;

/**
 * The {@link Retryable @Retryable} methods of the application, each read once: policy names
 * looked up, attributes checked, conditions parsed and fallbacks found. Every singleton bean is
 * checked when the context starts, so a mistake stops the application with a message naming the
 * method; methods of beans created later are checked on their first call.
 */
public class RetryableMethods extends AnnotatedMethods<RetryableMethod> {

	/**
	 * Creates the method cache.
	 * @param registry the policies the annotations name
	 * @param beanFactory resolves placeholders and {@code @bean} references, and lists the beans
	 * checked at startup; {@code null} for none
	 */
	public RetryableMethods(RetryRegistry registry, @Nullable ConfigurableListableBeanFactory beanFactory) {
		super(Retryable.class, new RetryableBinder(registry, beanFactory), beanFactory);
	}

	/**
	 * Returns the methods read so far (every annotated method of a singleton bean once the context
	 * has started) with the retry each runs with.
	 * @return the methods by name, such as {@code com.example.Client.fetch(String, long)}
	 */
	public SortedMap<String, MethodRetry> retries() {
		return describeBound((method) -> new MethodRetry(method.getRetry().getName(),
				method.policyName().isBlank() ? null : method.policyName(), method.getRetry().getPolicy(),
				method.retryIfText(), method.retryIfResultText(), method.fallbackName()));
	}

	/**
	 * The {@code @Retryable} of a method, with the settings it is bound with.
	 *
	 * @param name the retry's name in meters and events: the policy's, else {@code ClassName.method}
	 * @param policy the policy the annotation names, or {@code null} for the built-in defaults
	 * @param settings the policy with the attributes the annotation sets laid over it
	 * @param retryIf the {@code retryIf} expression as written, or {@code null} for none
	 * @param retryIfResult the {@code retryIfResult} expression as written, or {@code null} for none
	 * @param fallbackMethod the fallback method's name, or {@code null} for none
	 */
	public record MethodRetry(String name, @Nullable String policy, RetryPolicy settings, @Nullable String retryIf,
			@Nullable String retryIfResult, @Nullable String fallbackMethod) {
	}

}
