package dev.resilience.autoconfigure.pool;

import java.util.SortedMap;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import dev.resilience.autoconfigure.support.AnnotatedMethods;
import dev.resilience.pool.WithConnection;

/**
 * The {@link WithConnection @WithConnection} methods of the application, each read once: pool
 * looked up, timeout parsed. Every singleton bean is checked when the context starts, so a
 * mistake stops the application with a message naming the method.
 */
public class WithConnectionMethods extends AnnotatedMethods<WithConnectionMethod> {

	/**
	 * Creates the method cache.
	 * @param beanFactory holds the pools, resolves placeholders and lists the beans checked at
	 * startup
	 */
	public WithConnectionMethods(ConfigurableListableBeanFactory beanFactory) {
		super(WithConnection.class, new WithConnectionBinder(beanFactory), beanFactory);
	}

	/**
	 * Returns the methods read so far (every annotated method of a singleton bean once the context
	 * has started) with the pool and deadline each runs with.
	 * @return the methods by name, such as {@code com.example.Client.fetch(String, long)}
	 */
	public SortedMap<String, WithConnectionMethod> connections() {
		return describeBound((method) -> method);
	}

}
