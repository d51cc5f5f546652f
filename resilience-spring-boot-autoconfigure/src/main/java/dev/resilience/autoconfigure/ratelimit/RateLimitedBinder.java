package dev.resilience.autoconfigure.ratelimit;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotation;

import dev.resilience.autoconfigure.ratelimit.RateLimitedMethod.Limit;
import dev.resilience.autoconfigure.support.AnnotatedMethodPointcut;
import dev.resilience.autoconfigure.support.AnnotationAttributeResolver;
import dev.resilience.autoconfigure.support.MethodBinder;
import dev.resilience.autoconfigure.support.ResilienceConfigurationException;
import dev.resilience.autoconfigure.support.MethodExpression;
import dev.resilience.autoconfigure.support.MethodExpressionEvaluator;
import dev.resilience.autoconfigure.support.ReturnKind;
import dev.resilience.autoconfigure.support.ProposedSettings;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;
import dev.resilience.ratelimit.RateLimiterSettings;

/**
 * Reads the {@link RateLimited @RateLimited} annotations of one method: the type's first, then
 * the method's own, a method's annotation for the same limiter replacing the type's. Checks
 * that each names a configured limiter with a cost it could admit, a key that parses and a wait
 * that is a duration, and that no limiter counts a call twice.
 */
class RateLimitedBinder implements MethodBinder<RateLimitedMethod> {

	private final RateLimiterRegistry registry;

	private final MethodExpressionEvaluator expressions;

	private final AnnotationAttributeResolver attributes;

	private final ThrottleReader throttles;

	RateLimitedBinder(RateLimiterRegistry registry, @Nullable ConfigurableListableBeanFactory beanFactory,
			ThrottleReader throttles) {
		this.registry = registry;
		this.throttles = throttles;
		this.expressions = new MethodExpressionEvaluator(beanFactory);
		this.attributes = new AnnotationAttributeResolver(beanFactory);
	}

	@Override
	public @Nullable RateLimitedMethod bind(Method method, Class<?> targetClass, ReturnKind kind, ProposedSettings proposed) {
		checkNotRepeatedVerbatim(method, method, proposed);
		List<Limit> own = new ArrayList<>();
		for (RateLimited annotation : AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class)) {
			own.add(bind(annotation, method, proposed));
		}
		List<Limit> limits = new ArrayList<>();
		if (AnnotatedMethodPointcut.reachedByTypeLevel(method)) {
			checkNotRepeatedVerbatim(targetClass, method, proposed);
			for (RateLimited annotation : AnnotatedElementUtils.findMergedRepeatableAnnotations(targetClass, RateLimited.class)) {
				Limit typeLevel = bind(annotation, method, proposed);
				// The method's own annotation for the same limiter refines the type's.
				if (own.stream().noneMatch((limit) -> limit.limiter() == typeLevel.limiter())) {
					limits.add(typeLevel);
				}
			}
		}
		limits.addAll(own);
		if (limits.isEmpty()) {
			return null;
		}
		checkNoDuplicates(limits);
		return new RateLimitedMethod(this.registry, limits, this.throttles);
	}

	/**
	 * The same annotation written twice on one element: Spring's merged view holds it once, so it
	 * would silently count once; bound twice, it fails as a limiter named twice with the same key does.
	 */
	private void checkNotRepeatedVerbatim(AnnotatedElement element, Method method, ProposedSettings proposed) {
		RateLimited[] declared = element.getDeclaredAnnotationsByType(RateLimited.class);
		for (int i = 0; i < declared.length; i++) {
			for (int j = i + 1; j < declared.length; j++) {
				if (declared[i].equals(declared[j])) {
					// synthesized, so that name and its alias value are one
					RateLimited repeated = MergedAnnotation.from(element, declared[i]).synthesize();
					checkNoDuplicates(List.of(bind(repeated, method, proposed), bind(repeated, method, proposed)));
				}
			}
		}
	}

	/** The same limiter and key twice would count one call twice, and a call could wait for its own permit. */
	private static void checkNoDuplicates(List<Limit> limits) {
		for (int i = 0; i < limits.size(); i++) {
			for (int j = i + 1; j < limits.size(); j++) {
				Limit first = limits.get(i);
				Limit second = limits.get(j);
				if (first.limiter() == second.limiter() && first.keyText().equals(second.keyText())) {
					throw new ResilienceConfigurationException(first.where() + " names the rate limiter '"
							+ first.limiter().getName() + "' twice with the same key"
							+ (first.keyText().isEmpty() ? "" : " '" + first.keyText() + "'")
							+ "; a call would count twice against it",
							"Remove one of the two @RateLimited, or give them different keys.");
				}
			}
		}
	}

	private Limit bind(RateLimited annotation, Method method, ProposedSettings proposed) {
		String where = "@RateLimited on " + AnnotationAttributeResolver.describe(method);
		String name = this.attributes.resolve(annotation.name(), where + " (name)");
		if (name.isBlank()) {
			throw new ResilienceConfigurationException(where + " names no rate limiter; set name (or value)",
					"Set name (or value) to a rate limiter configured under resilience.rate-limiters "
							+ this.registry.getNames() + ".");
		}
		AnnotationAttributeResolver.checkConfigured(name, this.registry.getNames(), where, "the rate limiter",
				"resilience.rate-limiters");
		RateLimiter limiter = this.registry.get(name);
		RateLimiterSettings settings = proposed.get(name, RateLimiterSettings.class,
				(limiterName) -> this.registry.get(limiterName).getSettings());
		try {
			settings.checkCost(annotation.cost());
		}
		catch (IllegalArgumentException ex) {
			throw new ResilienceConfigurationException(where + ": cost " + annotation.cost()
					+ " is invalid for rate limiter '" + name + "': " + ex.getMessage(),
					"Lower the cost, or raise the limits of resilience.rate-limiters." + name + " so that one call fits.",
					ex);
		}
		String keyText = this.attributes.resolve(annotation.key(), where + " (key)");
		MethodExpression key = keyText.isBlank() ? null : this.expressions.parse(keyText, method, where + " (key)");
		Duration maxWait = annotation.maxWait().isBlank() ? settings.maxWait()
				: this.attributes.duration(annotation.maxWait(), where + " (maxWait)");
		return new Limit(limiter, key, annotation.cost(), maxWait, where);
	}

}
