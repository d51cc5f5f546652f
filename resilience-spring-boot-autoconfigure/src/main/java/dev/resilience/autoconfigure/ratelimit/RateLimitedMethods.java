package dev.resilience.autoconfigure.ratelimit;

import java.time.Clock;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import dev.resilience.autoconfigure.support.AnnotatedMethods;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.ThrottleSignal;

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
		this(registry, beanFactory, List.of(), Clock.systemUTC());
	}

	/**
	 * Creates the method cache, reading failed calls' exceptions as throttle signals for the
	 * limiters with {@code pause-on-throttle}.
	 * @param registry the limiters the annotations name
	 * @param beanFactory resolves placeholders and {@code @bean} references, and lists the beans
	 * checked at startup; {@code null} for none
	 * @param signals the application's readers of other clients' exceptions, asked in order after
	 * Spring's HTTP exceptions
	 * @param clock the clock a {@code Retry-After} date is compared with
	 */
	public RateLimitedMethods(RateLimiterRegistry registry, @Nullable ConfigurableListableBeanFactory beanFactory,
			List<ThrottleSignal> signals, Clock clock) {
		super(RateLimited.class, new RateLimitedBinder(registry, beanFactory, new ThrottleReader(signals, clock,
				(beanFactory != null) ? beanFactory.getBeanClassLoader() : RateLimitedMethods.class.getClassLoader())),
				beanFactory);
	}

}
