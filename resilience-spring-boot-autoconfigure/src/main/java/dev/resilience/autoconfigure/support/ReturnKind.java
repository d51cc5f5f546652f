package dev.resilience.autoconfigure.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * How an annotated method delivers its outcome, read once when the method is bound: by returning
 * (or throwing), through a {@link CompletionStage}, or through a Reactor {@code Mono} or
 * {@code Flux}. A Kotlin {@code suspend} function counts as a {@code Mono}: Spring's AOP hands its
 * advice the {@code Mono} it adapts the function to, and awaits the one the advice returns. Any
 * other asynchronous type (a plain {@link Future}, RxJava's or a Kotlin {@code Flow} among them) stops the application: treating it
 * as a plain value would silently decide, retry or time nothing that matters.
 */
public enum ReturnKind {

	/** The method's own return or throw is its outcome. */
	BLOCKING,

	/** A {@link CompletionStage} or {@link CompletableFuture}: the method is invoked per attempt. */
	COMPLETION_STAGE,

	/** A Reactor {@code Mono}, or a Kotlin {@code suspend} function: decided per subscription. */
	MONO,

	/** A Reactor {@code Flux}: decided per subscription, held until it terminates. */
	FLUX;

	private static final String REACTOR = "reactor.core.publisher.Mono";

	private static final String COROUTINES_REACTOR = "kotlinx.coroutines.reactor.MonoKt";

	/**
	 * Returns the kind as messages name it.
	 * @return such as {@code CompletionStage} or {@code Mono}
	 */
	public String description() {
		return switch (this) {
			case BLOCKING -> "value";
			case COMPLETION_STAGE -> "CompletionStage";
			case MONO -> "Mono";
			case FLUX -> "Flux";
		};
	}

	/**
	 * Reads how a method delivers its outcome.
	 * @param method the annotated method
	 * @param annotationType the annotation, for the message
	 * @return the kind
	 * @throws IllegalStateException naming the method and the type when the starter cannot handle
	 * the method's return type
	 */
	public static ReturnKind of(Method method, Class<? extends Annotation> annotationType) {
		return of(method, annotationType, ReturnKind.class.getClassLoader());
	}

	/**
	 * Reads how a method delivers its outcome, looking for Reactor with the application's class
	 * loader.
	 * @param method the annotated method
	 * @param annotationType the annotation, for the message
	 * @param classLoader the application's class loader
	 * @return the kind
	 * @throws IllegalStateException naming the method and the type when the starter cannot handle
	 * the method's return type
	 */
	public static ReturnKind of(Method method, Class<? extends Annotation> annotationType,
			@Nullable ClassLoader classLoader) {
		Class<?> type = method.getReturnType();
		boolean reactor = ClassUtils.isPresent(REACTOR, classLoader);
		if (KotlinDetector.isSuspendingFunction(method)) {
			if (!reactor || !ClassUtils.isPresent(COROUTINES_REACTOR, classLoader)) {
				throw unsupported(method, annotationType, "a Kotlin suspend function",
						"it needs Reactor and kotlinx-coroutines-reactor on the classpath");
			}
			return MONO;
		}
		if (type == CompletionStage.class || type == CompletableFuture.class) {
			return COMPLETION_STAGE;
		}
		if (CompletionStage.class.isAssignableFrom(type)) {
			throw unsupported(method, annotationType, type.getName(),
					"declare CompletionStage or CompletableFuture, which the starter can return in its place");
		}
		if (Future.class.isAssignableFrom(type)) {
			throw unsupported(method, annotationType, type.getName(),
					"a Future cannot tell when it completes without a thread waiting on it; return a CompletionStage");
		}
		if (reactor && ReactorTypes.isMono(type)) {
			return MONO;
		}
		if (reactor && ReactorTypes.isFlux(type)) {
			return FLUX;
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
		if (adapter != null) {
			throw unsupported(method, annotationType, type.getName(),
					"the supported asynchronous types are CompletionStage, CompletableFuture, Mono, Flux and Kotlin suspend functions");
		}
		return BLOCKING;
	}

	private static ResilienceConfigurationException unsupported(Method method,
			Class<? extends Annotation> annotationType, String type, String why) {
		return new ResilienceConfigurationException("@" + annotationType.getSimpleName() + " on "
				+ AnnotationAttributeResolver.describe(method) + " cannot handle its return type " + type + ": " + why,
				"Return a value, a CompletionStage or CompletableFuture, a Mono or a Flux from "
						+ AnnotationAttributeResolver.describe(method) + ", or remove @" + annotationType.getSimpleName()
						+ " from it.");
	}

	/** Reactor's types, in a class of their own so that nothing loads them without Reactor. */
	private static final class ReactorTypes {

		static boolean isMono(Class<?> type) {
			return reactor.core.publisher.Mono.class.isAssignableFrom(type);
		}

		static boolean isFlux(Class<?> type) {
			return reactor.core.publisher.Flux.class.isAssignableFrom(type);
		}

	}

}
