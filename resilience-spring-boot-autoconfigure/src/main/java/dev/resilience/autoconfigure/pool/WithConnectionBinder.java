package dev.resilience.autoconfigure.pool;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;

import dev.resilience.autoconfigure.support.AnnotatedMethodPointcut;
import dev.resilience.autoconfigure.support.AnnotationAttributeResolver;
import dev.resilience.autoconfigure.support.MethodBinder;
import dev.resilience.autoconfigure.support.ResilienceConfigurationException;
import dev.resilience.autoconfigure.support.ReturnKind;
import dev.resilience.autoconfigure.support.ProposedSettings;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolSettings;
import dev.resilience.pool.WithConnection;

/**
 * Reads the {@link WithConnection @WithConnection} of one method, its own or else its type's.
 * Checks that it names a pool and that its timeout is a positive duration.
 */
class WithConnectionBinder implements MethodBinder<WithConnectionMethod> {

	private final ConfigurableListableBeanFactory beanFactory;

	private final AnnotationAttributeResolver attributes;

	WithConnectionBinder(ConfigurableListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.attributes = new AnnotationAttributeResolver(beanFactory);
	}

	@Override
	public @Nullable WithConnectionMethod bind(Method method, Class<?> targetClass, ReturnKind kind, ProposedSettings proposed) {
		WithConnection annotation = AnnotatedElementUtils.findMergedAnnotation(method, WithConnection.class);
		if (annotation == null && AnnotatedMethodPointcut.reachedByTypeLevel(method)) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, WithConnection.class);
		}
		if (annotation == null) {
			return null;
		}
		String where = "@WithConnection on " + AnnotationAttributeResolver.describe(method);
		String name = this.attributes.resolve(annotation.pool(), where + " (pool)");
		if (name.isBlank()) {
			throw new ResilienceConfigurationException(where + " names no pool; set pool (or value)",
					"Set pool (or value) to a pool configured under resilience.pools " + pools().keySet() + ".");
		}
		Map<String, ConnectionPool<?>> pools = pools();
		AnnotationAttributeResolver.checkConfigured(name, pools.keySet(), where, "the pool", "resilience.pools");
		ConnectionPool<?> pool = pools.get(name);
		Duration timeout = proposed.get(name, ConnectionPoolSettings.class, (poolName) -> pool.getSettings()).timeout();
		if (!annotation.timeout().isBlank()) {
			timeout = this.attributes.duration(annotation.timeout(), where + " (timeout)");
			if (timeout.isZero()) {
				throw new ResilienceConfigurationException("'" + annotation.timeout() + "' of " + where
						+ " (timeout) must be positive", "Set timeout to a positive duration, such as 5s, or leave it "
								+ "unset to use the pool's resilience.pools." + name + ".timeout.");
			}
		}
		return new WithConnectionMethod(pool, timeout);
	}

	/** The pools by name: those of resilience.pools, and any a user defined as a bean. */
	private Map<String, ConnectionPool<?>> pools() {
		Map<String, ConnectionPool<?>> pools = new TreeMap<>();
		this.beanFactory.getBeanProvider(ConnectionPool.class)
			.orderedStream()
			.forEach((pool) -> pools.put(pool.getName(), (ConnectionPool<?>) pool));
		return pools;
	}

}
