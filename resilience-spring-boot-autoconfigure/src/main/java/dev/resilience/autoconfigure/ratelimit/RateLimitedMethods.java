package dev.resilience.autoconfigure.ratelimit;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import dev.resilience.autoconfigure.support.AnnotatedMethods;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * The {@link RateLimited @RateLimited} methods of the application, each read once: limiter
 * names looked up, costs checked, key expressions parsed and waits parsed. Every singleton bean
 * is checked when the context starts, so a mistake stops the application with a message naming
 * the method; methods of beans created later are checked on their first call.
 */
public class RateLimitedMethods extends AnnotatedMethods<RateLimitedMethod> {

	/**
	 * Creates the method cache.
	 * @param registry the limiters the annotations name
	 * @param beanFactory resolves placeholders and {@code @bean} references, and lists the beans
	 * checked at startup; {@code null} for none
	 */
	public RateLimitedMethods(RateLimiterRegistry registry, @Nullable ConfigurableListableBeanFactory beanFactory) {
		super(RateLimited.class, new RateLimitedBinder(registry, beanFactory), beanFactory);
	}

}
