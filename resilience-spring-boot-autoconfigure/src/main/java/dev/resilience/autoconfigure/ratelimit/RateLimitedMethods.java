package dev.resilience.autoconfigure.ratelimit;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.SortedMap;

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

	/**
	 * Returns the methods read so far (every annotated method of a singleton bean once the context
	 * has started) with what each asks of its limiters, in the order asked. Key expressions are
	 * shown as written, never a key a call evaluated.
	 * @return the methods by name, such as {@code com.example.Client.fetch(String, long)}
	 */
	public SortedMap<String, List<MethodLimit>> limits() {
		return describeBound((method) -> method.limits()
			.stream()
			.map((limit) -> new MethodLimit(limit.limiter().getName(),
					(limit.key() != null) ? limit.keyText() : null, limit.cost(), limit.maxWait()))
			.toList());
	}

	/**
	 * One {@code @RateLimited} of a method, with the settings it is bound with.
	 *
	 * @param limiter the limiter's name
	 * @param key the key expression as written, or {@code null} for the limiter's shared bucket
	 * @param cost what one call consumes
	 * @param maxWait the longest wait: the annotation's {@code maxWait}, else the limiter's
	 * {@code max-wait}
	 */
	public record MethodLimit(String limiter, @Nullable String key, int cost, Duration maxWait) {
	}

}
