package dev.resilience.autoconfigure.pool;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

import io.micrometer.context.ContextSnapshotFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

import dev.resilience.Ticker;
import dev.resilience.autoconfigure.support.ClosestName;
import dev.resilience.autoconfigure.support.ContinuationScheduler;
import dev.resilience.autoconfigure.support.ResilienceConfigurationException;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.pool.ConnectionFactory;
import dev.resilience.pool.ConnectionPool;
import dev.resilience.pool.ConnectionPoolListener;
import dev.resilience.pool.ConnectionPoolSettings;

/**
 * Registers a {@link ConnectionPool} bean per {@code resilience.pools.<name>}, named after the
 * pool, once every other bean definition is known (so the factory beans can be checked). When
 * the factory's connection type can be read from its definition, the bean's type carries it, so
 * {@code @Autowired ConnectionPool<HttpWorker>} finds the right pool; a pool without a factory is a
 * {@code ConnectionPool<Object>}. Mistakes stop startup naming the property: a setting out of
 * range, a factory bean that does not exist or is no {@link ConnectionFactory}, a pool name that
 * another bean already has. Under Spring's AOT processing the pools are not part of the
 * generated context: this registrar registers them when that context starts, as it does without AOT.
 */
public class ConnectionPoolRegistrar implements BeanDefinitionRegistryPostProcessor {

	private static final String PREFIX = "resilience.pools";

	private final Environment environment;

	/**
	 * Creates the registrar.
	 * @param environment where {@code resilience.pools} is bound from
	 */
	public ConnectionPoolRegistrar(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
		if (!(registry instanceof ConfigurableListableBeanFactory beanFactory)) {
			throw new IllegalStateException("resilience.pools needs a ConfigurableListableBeanFactory");
		}
		Map<String, ConnectionPoolProperties> pools = Binder.get(this.environment)
			.bind(PREFIX, Bindable.mapOf(String.class, ConnectionPoolProperties.class))
			.orElseGet(Map::of);
		pools.forEach((name, properties) -> {
			ConnectionPoolSettings settings = properties.toSettings(name);
			if (registry.containsBeanDefinition(name)) {
				throw new IllegalStateException(PREFIX + "." + name + ": a bean named '" + name
						+ "' exists already; the pool's bean takes the pool's name, so rename the pool");
			}
			String factory = properties.getFactory();
			RootBeanDefinition definition = new RootBeanDefinition(ConnectionPool.class);
			ResolvableType connection = (factory != null) ? connectionType(beanFactory, name, factory)
					: ResolvableType.forClass(Object.class);
			if (connection != null) {
				definition.setTargetType(ResolvableType.forClassWithGenerics(ConnectionPool.class, connection));
			}
			definition.setInstanceSupplier(() -> createPool(beanFactory, name, factory, settings));
			definition.setDestroyMethodName("close");
			// AOT cannot write an instance supplier as code: the pools are left out of the generated
			// context, and this registrar, which runs in it too, registers them from the environment
			definition.setAttribute(BeanRegistrationAotProcessor.IGNORE_REGISTRATION_ATTRIBUTE, true);
			registry.registerBeanDefinition(name, definition);
		});
	}

	/**
	 * The connection type of the factory bean, read from its definition without creating it, or
	 * {@code null} when the definition hides it (then injection points match the pool by name).
	 */
	private static @Nullable ResolvableType connectionType(ConfigurableListableBeanFactory beanFactory, String pool,
			String factory) {
		String property = PREFIX + "." + pool + ".factory";
		if (!beanFactory.containsBean(factory)) {
			throw new ResilienceConfigurationException(property + " names the bean '" + factory
					+ "', which does not exist; ConnectionFactory beans are " + factoryNames(beanFactory),
					factoryAction(beanFactory, property, factory));
		}
		if (!beanFactory.isTypeMatch(factory, ConnectionFactory.class)) {
			throw new ResilienceConfigurationException(property + " names the bean '" + factory + "', which is a "
					+ beanFactory.getType(factory, false) + ", not a " + ConnectionFactory.class.getName()
					+ "; ConnectionFactory beans are " + factoryNames(beanFactory),
					factoryAction(beanFactory, property, factory));
		}
		// Predicting the type resolves a factory method's generic return type into the definition.
		Class<?> type = beanFactory.getType(factory, false);
		ResolvableType connection = beanFactory.getMergedBeanDefinition(factory)
			.getResolvableType()
			.as(ConnectionFactory.class)
			.getGeneric(0);
		if (connection.resolve() == null && type != null) {
			connection = ResolvableType.forClass(type).as(ConnectionFactory.class).getGeneric(0);
		}
		return (connection.resolve() != null) ? connection : null;
	}

	private static String factoryNames(ConfigurableListableBeanFactory beanFactory) {
		return Arrays.toString(beanFactory.getBeanNamesForType(ConnectionFactory.class, true, false));
	}

	private static String factoryAction(ConfigurableListableBeanFactory beanFactory, String property, String factory) {
		String closest = ClosestName.of(factory,
				Arrays.asList(beanFactory.getBeanNamesForType(ConnectionFactory.class, true, false)));
		return ((closest != null) ? "Did you mean '" + closest + "'? " : "") + "Set " + property
				+ " to the name of a ConnectionFactory bean, define one named '" + factory
				+ "', or remove the property to make a pool of permits.";
	}

	@SuppressWarnings("unchecked")
	private static ConnectionPool<?> createPool(ConfigurableListableBeanFactory beanFactory, String name,
			@Nullable String factory, ConnectionPoolSettings settings) {
		ConnectionPool.Builder<?> builder = (factory != null)
				? ConnectionPool.builder(name, beanFactory.getBean(factory, ConnectionFactory.class))
				: ConnectionPool.permits(name);
		builder.settings(settings).ticker(beanFactory.getBean(Ticker.class));
		if (beanFactory.containsBean(ContinuationScheduler.BEAN_NAME)) {
			builder.scheduler(beanFactory.getBean(ContinuationScheduler.BEAN_NAME, ScheduledExecutorService.class));
		}
		beanFactory.getBeanProvider(ContextSnapshotFactory.class).ifAvailable(builder::contextSnapshots);
		beanFactory.getBeanProvider(ConnectionPoolListener.class).orderedStream().forEach(builder::listener);
		beanFactory.getBeanProvider(ResilienceObservations.class).ifAvailable(builder::observations);
		return builder.build();
	}

}
