package dev.resilience.autoconfigure.retry;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import dev.resilience.autoconfigure.support.AnnotatedMethods;
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

}
