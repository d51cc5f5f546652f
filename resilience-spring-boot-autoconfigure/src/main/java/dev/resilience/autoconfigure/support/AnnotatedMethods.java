package dev.resilience.autoconfigure.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.micrometer.context.ContextSnapshotFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.TargetClassAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * The methods of the application that carry one annotation, each read once by the capability's
 * {@link MethodBinder} and kept by method and target class. Every singleton bean is checked when
 * the context starts, so a mistake stops the application with a message naming the method;
 * methods of beans created later are checked on their first call. An annotated private, static
 * or final method, which a proxy cannot intercept, is a mistake too.
 *
 * @param <B> the binding the capability makes of one method
 */
public class AnnotatedMethods<B> implements SmartInitializingSingleton {

	private static final ReflectionUtils.MethodFilter CHECKED_METHODS = (method) -> !method.isBridge()
			&& !method.isSynthetic() && method.getDeclaringClass() != Object.class;

	private final AnnotatedMethodPointcut pointcut;

	private final MethodBinder<B> binder;

	private final @Nullable ConfigurableListableBeanFactory beanFactory;

	/** Replaced whole by {@link #rebind()}. */
	private volatile Map<Key, Optional<Bound<B>>> bindings = new ConcurrentHashMap<>();

	private final SingletonSupplier<ScheduledExecutorService> scheduler = SingletonSupplier.of(this::findScheduler);

	private final SingletonSupplier<ContextSnapshotFactory> contextSnapshots = SingletonSupplier
		.of(this::findContextSnapshots);

	/**
	 * Creates the method cache.
	 * @param annotationType the capability's annotation
	 * @param binder reads one method's annotations into a binding
	 * @param beanFactory lists the beans checked at startup; {@code null} for none
	 */
	public AnnotatedMethods(Class<? extends Annotation> annotationType, MethodBinder<B> binder,
			@Nullable ConfigurableListableBeanFactory beanFactory) {
		this.pointcut = new AnnotatedMethodPointcut(annotationType);
		this.binder = binder;
		this.beanFactory = beanFactory;
	}

	/**
	 * Checks the annotated methods of every singleton bean, including JDK proxies made
	 * elsewhere (such as HTTP interface clients), whose interfaces carry the annotations.
	 * @throws IllegalStateException naming the method of the first mistake
	 */
	@Override
	public void afterSingletonsInstantiated() {
		if (this.beanFactory == null) {
			return;
		}
		for (String name : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(name, false);
			// A JDK proxy's class shows only interfaces: read the class of the object it proxies.
			if (type != null && Proxy.isProxyClass(type)
					&& this.beanFactory.getSingleton(name) instanceof TargetClassAware proxy) {
				Class<?> targetClass = proxy.getTargetClass();
				type = (targetClass != null) ? targetClass : type;
			}
			if (type == null || !this.pointcut.isCandidateClass(type)) {
				continue;
			}
			if (Proxy.isProxyClass(type)) {
				// A proxy made elsewhere: its interfaces carry the annotations, its own methods are final.
				Class<?> proxyClass = type;
				for (Class<?> api : ClassUtils.getAllInterfacesForClassAsSet(proxyClass)) {
					ReflectionUtils.doWithMethods(api, (method) -> check(method, proxyClass), CHECKED_METHODS);
				}
			}
			else {
				Class<?> userClass = ClassUtils.getUserClass(type);
				ReflectionUtils.doWithMethods(userClass, (method) -> check(method, userClass), CHECKED_METHODS);
			}
		}
	}

	/**
	 * Returns the binding of a method, reading it on first use.
	 * @param method the invoked method
	 * @param targetClass the class of the target bean
	 * @return the binding, or {@code null} when the annotation does not apply to the method
	 * @throws IllegalStateException naming the method when an annotation is wrong
	 */
	public final @Nullable B get(Method method, Class<?> targetClass) {
		Bound<B> bound = bound(method, targetClass);
		return (bound != null) ? bound.binding() : null;
	}

	/**
	 * Returns the binding of a method with its return kind, reading it on first use.
	 * @param method the invoked method
	 * @param targetClass the class of the target bean
	 * @return the binding, or {@code null} when the annotation does not apply to the method
	 * @throws IllegalStateException naming the method when an annotation or the return type is
	 * wrong
	 */
	final @Nullable Bound<B> bound(Method method, Class<?> targetClass) {
		return this.bindings.computeIfAbsent(new Key(method, targetClass), (key) -> read(method, targetClass, ProposedSettings.NONE))
			.orElse(null);
	}

	/**
	 * Reads every method read so far again as if a change were made, changing nothing: the check
	 * of a run-time change before it is made.
	 * @param proposed the settings the change would give
	 * @throws IllegalStateException naming the method of the first mistake
	 */
	public final synchronized void check(ProposedSettings proposed) {
		for (Key key : this.bindings.keySet()) {
			read(key.method(), key.targetClass(), proposed);
		}
	}

	/**
	 * Reads every method read so far again, after settings they name changed at run time; the
	 * calls that begin afterwards use the new bindings. All or nothing: when one method's
	 * annotation does not fit the new settings, the old bindings stay.
	 * @throws IllegalStateException naming the method of the first mistake
	 */
	public final synchronized void rebind() {
		Map<Key, Optional<Bound<B>>> fresh = new ConcurrentHashMap<>();
		for (Key key : this.bindings.keySet()) {
			fresh.put(key, read(key.method(), key.targetClass(), ProposedSettings.NONE));
		}
		this.bindings = fresh;
	}

	/**
	 * Returns what each method read so far runs with, for a view of the annotated methods: every
	 * annotated method of a singleton bean once the context has started, and those of beans made
	 * later once called. Methods are named {@code com.example.Client.fetch(String, long)}, by the
	 * class of the bean and the parameters' simple names, in their alphabetical order.
	 * @param <V> what is shown of a binding
	 * @param view what to show of one method's binding
	 * @return the methods by name
	 */
	protected final <V> SortedMap<String, V> describeBound(Function<? super B, ? extends V> view) {
		SortedMap<String, V> described = new TreeMap<>();
		this.bindings.forEach((key, bound) -> bound
			.ifPresent((present) -> described.put(id(key.method(), key.targetClass()), view.apply(present.binding()))));
		return described;
	}

	/**
	 * A method's name in {@link #describeBound}: a JDK proxy's class has a generated name, so the
	 * interface that declares the method names it then.
	 */
	private static String id(Method method, Class<?> targetClass) {
		Class<?> type = Proxy.isProxyClass(targetClass) ? method.getDeclaringClass()
				: ClassUtils.getUserClass(targetClass);
		return type.getName() + "." + method.getName() + Arrays.stream(method.getParameterTypes())
			.map(Class::getSimpleName)
			.collect(Collectors.joining(", ", "(", ")"));
	}

	/**
	 * Returns the scheduler of the asynchronous calls: the application's
	 * {@value ContinuationScheduler#BEAN_NAME} bean, looked up on first use.
	 * @return the scheduler
	 */
	final ScheduledExecutorService scheduler() {
		ScheduledExecutorService scheduler = this.scheduler.get();
		Assert.state(scheduler != null, "no scheduler");
		return scheduler;
	}

	/**
	 * Returns what captures the caller's context for the continuations of asynchronous calls: the
	 * application's {@code ContextSnapshotFactory} bean (the starter's
	 * {@code resilienceContextSnapshotFactory}, which carries the MDC too), as the pools use, looked
	 * up on first use; without one, the accessors of the global {@code ContextRegistry}.
	 * @return the snapshot factory
	 */
	final ContextSnapshotFactory contextSnapshots() {
		ContextSnapshotFactory contextSnapshots = this.contextSnapshots.get();
		Assert.state(contextSnapshots != null, "no context snapshot factory");
		return contextSnapshots;
	}

	private ContextSnapshotFactory findContextSnapshots() {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		return (beanFactory != null)
				? beanFactory.getBeanProvider(ContextSnapshotFactory.class)
					.getIfUnique(() -> ContextSnapshotFactory.builder().build())
				: ContextSnapshotFactory.builder().build();
	}

	private ScheduledExecutorService findScheduler() {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		return (beanFactory != null && beanFactory.containsBean(ContinuationScheduler.BEAN_NAME))
				? beanFactory.getBean(ContinuationScheduler.BEAN_NAME, ScheduledExecutorService.class)
				: ContinuationScheduler.shared();
	}

	/** Reads and checks an annotated method now; unannotated ones are not cached. */
	private void check(Method method, Class<?> targetClass) {
		if (this.pointcut.matches(method, targetClass)) {
			get(method, targetClass);
		}
	}

	private Optional<Bound<B>> read(Method invoked, Class<?> targetClass, ProposedSettings proposed) {
		if (!this.pointcut.matches(invoked, targetClass)) {
			return Optional.empty();
		}
		Method method = AnnotatedMethodPointcut.specificMethod(invoked, targetClass);
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
			throw new ResilienceConfigurationException("@" + this.pointcut.getAnnotationType().getSimpleName() + " on "
					+ AnnotationAttributeResolver.describe(method)
					+ " would have no effect: Spring AOP cannot intercept a private, static or final method",
					"Make " + AnnotationAttributeResolver.describe(method)
							+ " a public (or protected) instance method that is not final, called through the bean.");
		}
		ReturnKind kind = ReturnKind.of(method, this.pointcut.getAnnotationType(),
				(this.beanFactory != null) ? this.beanFactory.getBeanClassLoader() : null);
		B binding = this.binder.bind(method, targetClass, kind, proposed);
		return (binding != null) ? Optional.of(new Bound<>(binding, kind)) : Optional.empty();
	}

	/**
	 * A method as invoked on a class of target bean.
	 *
	 * @param method the invoked method
	 * @param targetClass the class of the target bean
	 */
	private record Key(Method method, Class<?> targetClass) {
	}

	/**
	 * A method's binding and how it returns.
	 *
	 * @param <B> the binding
	 * @param binding the capability's binding
	 * @param kind the method's return kind
	 */
	record Bound<B>(B binding, ReturnKind kind) {
	}

}
