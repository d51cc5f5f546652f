package dev.resilience.autoconfigure.ratelimit;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.TargetClassAware;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.resilience.autoconfigure.support.AnnotationAttributeResolver;
import dev.resilience.autoconfigure.support.MethodExpressionEvaluator;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.ratelimit.RateLimiter;
import dev.resilience.ratelimit.RateLimiterRegistry;

/**
 * The {@link RateLimited @RateLimited} methods of the application, each read once: limiter
 * names looked up, costs checked, key expressions parsed and waits parsed. Every singleton bean
 * is checked when the context starts, so a mistake stops the application with a message naming
 * the method; methods of beans created later are checked on their first call.
 */
public class RateLimitedMethods implements SmartInitializingSingleton {

	private final RateLimiterRegistry registry;

	private final MethodExpressionEvaluator expressions;

	private final AnnotationAttributeResolver attributes;

	private final @Nullable ConfigurableListableBeanFactory beanFactory;

	private static final ReflectionUtils.MethodFilter CHECKED_METHODS = (method) -> !method.isBridge()
			&& !method.isSynthetic() && method.getDeclaringClass() != Object.class;

	private final Map<MethodClassKey, List<Binding>> bindings = new ConcurrentHashMap<>();

	/**
	 * Creates the method cache.
	 * @param registry the limiters the annotations name
	 * @param beanFactory resolves placeholders and {@code @bean} references, and lists the beans
	 * checked at startup; {@code null} for none
	 */
	public RateLimitedMethods(RateLimiterRegistry registry, @Nullable ConfigurableListableBeanFactory beanFactory) {
		this.registry = registry;
		this.beanFactory = beanFactory;
		this.expressions = new MethodExpressionEvaluator(beanFactory);
		this.attributes = new AnnotationAttributeResolver(beanFactory);
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.beanFactory == null) {
			return;
		}
		for (String name : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(name, false);
			// A JDK proxy's class shows only interfaces, whose methods carry no @RateLimited: read
			// the class of the object it proxies instead.
			if (type != null && Proxy.isProxyClass(type)
					&& this.beanFactory.getSingleton(name) instanceof TargetClassAware proxy) {
				Class<?> targetClass = proxy.getTargetClass();
				type = (targetClass != null) ? targetClass : type;
			}
			if (type != null && Proxy.isProxyClass(type)) {
				// A proxy made elsewhere (an HTTP interface client, a repository): its interfaces
				// carry the annotations, and its own methods are final.
				Class<?> proxyClass = type;
				for (Class<?> api : ClassUtils.getAllInterfacesForClassAsSet(proxyClass)) {
					ReflectionUtils.doWithMethods(api, (method) -> check(method, proxyClass), CHECKED_METHODS);
				}
			}
			else if (type != null) {
				Class<?> userClass = ClassUtils.getUserClass(type);
				ReflectionUtils.doWithMethods(userClass, (method) -> check(method, userClass), CHECKED_METHODS);
			}
		}
	}

	/**
	 * Admits a call of the method through all of its limiters.
	 * @param method the invoked method
	 * @param targetClass the class of the target bean
	 * @param arguments the call's arguments
	 * @return the permit, or {@code null} when no limiter applies to the method
	 */
	public @Nullable Permit acquire(Method method, Class<?> targetClass, @Nullable Object[] arguments) {
		List<Binding> bindings = bindings(method, targetClass);
		if (bindings.isEmpty()) {
			return null;
		}
		List<RateLimitRequest> requests = new ArrayList<>(bindings.size());
		for (Binding binding : bindings) {
			requests.add(new RateLimitRequest(binding.limiter(), key(binding, arguments), binding.cost(),
					binding.maxWait()));
		}
		return this.registry.acquireAll(requests);
	}

	private String key(Binding binding, @Nullable Object[] arguments) {
		Expression key = binding.key();
		if (key == null) {
			return "";
		}
		Object value = this.expressions.evaluate(key, binding.method(), arguments, Map.of());
		if (value == null) {
			throw new IllegalArgumentException("The key expression '" + key.getExpressionString() + "' of "
					+ binding.where() + " evaluated to null; a null key would silently share one bucket");
		}
		return value.toString();
	}

	/**
	 * Returns whether the method or, for a public method, its class carries {@code @RateLimited}
	 * anywhere in its hierarchy; a cheap check that reads no configuration.
	 * @param method the method
	 * @param targetClass the class of the target bean
	 * @return whether an annotation may apply
	 */
	static boolean isAnnotated(Method method, Class<?> targetClass) {
		Method specific = specificMethod(method, targetClass);
		return MergedAnnotations.from(specific, SearchStrategy.TYPE_HIERARCHY).isPresent(RateLimited.class)
				|| (reachedByTypeLevel(specific)
						&& MergedAnnotations.from(targetClass, SearchStrategy.TYPE_HIERARCHY).isPresent(RateLimited.class));
	}

	/** The method the annotations are read from; a JDK proxy's own methods are final stand-ins for its interfaces'. */
	private static Method specificMethod(Method method, Class<?> targetClass) {
		return Proxy.isProxyClass(targetClass) ? method : AopUtils.getMostSpecificMethod(method, targetClass);
	}

	/** A type-level annotation reaches public instance methods, but not toString, equals or hashCode. */
	private static boolean reachedByTypeLevel(Method method) {
		int modifiers = method.getModifiers();
		return Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers) && !ReflectionUtils.isObjectMethod(method);
	}

	/** Reads and checks an annotated method now; unannotated ones are not cached. */
	private void check(Method method, Class<?> targetClass) {
		if (isAnnotated(method, targetClass)) {
			bindings(method, targetClass);
		}
	}

	private List<Binding> bindings(Method method, Class<?> targetClass) {
		return this.bindings.computeIfAbsent(new MethodClassKey(method, targetClass), (k) -> read(method, targetClass));
	}

	private List<Binding> read(Method invoked, Class<?> targetClass) {
		Method method = specificMethod(invoked, targetClass);
		List<Binding> own = new ArrayList<>();
		for (RateLimited annotation : AnnotatedElementUtils.findMergedRepeatableAnnotations(method, RateLimited.class)) {
			own.add(bind(annotation, method));
		}
		List<Binding> bindings = new ArrayList<>();
		if (reachedByTypeLevel(method)) {
			for (RateLimited annotation : AnnotatedElementUtils.findMergedRepeatableAnnotations(targetClass, RateLimited.class)) {
				Binding typeLevel = bind(annotation, method);
				// The method's own annotation for the same limiter refines the type's.
				if (own.stream().noneMatch((binding) -> binding.limiter() == typeLevel.limiter())) {
					bindings.add(typeLevel);
				}
			}
		}
		bindings.addAll(own);
		int modifiers = method.getModifiers();
		if (!bindings.isEmpty()
				&& (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers))) {
			throw new IllegalStateException("@RateLimited on " + AnnotationAttributeResolver.describe(method)
					+ " would have no effect: Spring AOP cannot intercept a private, static or final method");
		}
		checkNoDuplicates(bindings);
		return List.copyOf(bindings);
	}

	/** The same limiter and key twice would count one call twice, and a call could wait for its own permit. */
	private static void checkNoDuplicates(List<Binding> bindings) {
		for (int i = 0; i < bindings.size(); i++) {
			for (int j = i + 1; j < bindings.size(); j++) {
				Binding first = bindings.get(i);
				Binding second = bindings.get(j);
				if (first.limiter() == second.limiter() && keyText(first).equals(keyText(second))) {
					throw new IllegalStateException(first.where() + " names the rate limiter '" + first.limiter().getName()
							+ "' twice with the same key" + (keyText(first).isEmpty() ? "" : " '" + keyText(first) + "'")
							+ "; a call would count twice against it");
				}
			}
		}
	}

	private static String keyText(Binding binding) {
		Expression key = binding.key();
		return (key != null) ? key.getExpressionString() : "";
	}

	private Binding bind(RateLimited annotation, Method method) {
		String where = "@RateLimited on " + AnnotationAttributeResolver.describe(method);
		String name = this.attributes.resolve(annotation.name(), where + " (name)");
		if (name.isBlank()) {
			throw new IllegalStateException(where + " names no rate limiter; set name (or value)");
		}
		if (!this.registry.getNames().contains(name)) {
			throw new IllegalStateException(where + " names the rate limiter '" + name
					+ "', which is not configured; configured under resilience.rate-limiters are "
					+ this.registry.getNames());
		}
		RateLimiter limiter = this.registry.get(name);
		try {
			limiter.getSettings().checkCost(annotation.cost());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(where + ": cost " + annotation.cost() + " is invalid for rate limiter '"
					+ name + "': " + ex.getMessage(), ex);
		}
		String keyText = this.attributes.resolve(annotation.key(), where + " (key)");
		Expression key = keyText.isBlank() ? null : this.expressions.parse(keyText, where + " (key)");
		Duration maxWait = annotation.maxWait().isBlank() ? limiter.getSettings().maxWait()
				: this.attributes.duration(annotation.maxWait(), where + " (maxWait)");
		return new Binding(limiter, key, annotation.cost(), maxWait, method, where);
	}

	/** One {@code @RateLimited} of a method, read and checked. */
	private record Binding(RateLimiter limiter, @Nullable Expression key, int cost, Duration maxWait, Method method,
			String where) {
	}

}
