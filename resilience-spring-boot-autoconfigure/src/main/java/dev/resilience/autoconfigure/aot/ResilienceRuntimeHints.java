package dev.resilience.autoconfigure.aot;

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

import dev.resilience.autoconfigure.ResilienceProperties;
import dev.resilience.autoconfigure.actuate.ResilienceEndpoint;
import dev.resilience.autoconfigure.actuate.ResilienceEventsProperties;
import dev.resilience.autoconfigure.poll.PollProperties;
import dev.resilience.autoconfigure.poll.PollsProperties;
import dev.resilience.autoconfigure.pool.ConnectionPoolProperties;
import dev.resilience.autoconfigure.pool.PoolsProperties;
import dev.resilience.autoconfigure.ratelimit.RateLimiterProperties;
import dev.resilience.autoconfigure.ratelimit.RateLimitingProperties;
import dev.resilience.autoconfigure.retry.RetriesProperties;
import dev.resilience.autoconfigure.retry.RetryProperties;
import dev.resilience.poll.PollUntil;
import dev.resilience.pool.ConnectionPoolStats;
import dev.resilience.pool.WithConnection;
import dev.resilience.ratelimit.RateLimited;
import dev.resilience.retry.Retryable;

/**
 * What the starter reaches by reflection, for a native image: the annotations' attributes (read
 * through Spring's merged annotations, synthesized as JDK proxies because of their
 * {@code @AliasFor} pairs), the properties classes (bound by the Binder, the pools' outside any
 * {@code @ConfigurationProperties} bean), the Lua scripts of the Redis store (class-path resources),
 * the records the endpoint and the health contributor answer with (written by Jackson), and the JDK
 * 21 methods that make the pools' executors of named virtual threads.
 */
class ResilienceRuntimeHints implements RuntimeHintsRegistrar {

	static final List<Class<? extends Annotation>> ANNOTATIONS = List.of(RateLimited.class, RateLimited.List.class,
			Retryable.class, PollUntil.class, WithConnection.class);

	static final List<Class<?>> PROPERTIES = List.of(ResilienceProperties.class, RateLimitingProperties.class,
			RateLimiterProperties.class, RetriesProperties.class, RetryProperties.class, PollsProperties.class,
			PollProperties.class, PoolsProperties.class, ConnectionPoolProperties.class, ResilienceEventsProperties.class);

	static final String SCRIPTS = "dev/resilience/ratelimit/redis/*.lua";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (Class<? extends Annotation> annotation : ANNOTATIONS) {
			hints.reflection()
				.registerType(annotation, MemberCategory.INVOKE_DECLARED_METHODS, MemberCategory.INVOKE_PUBLIC_METHODS);
			hints.proxies().registerJdkProxy(annotation);
		}
		BindableRuntimeHintsRegistrar.forTypes(PROPERTIES.toArray(Class<?>[]::new)).registerHints(hints, classLoader);
		hints.resources().registerPattern(SCRIPTS);
		BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();
		binding.registerReflectionHints(hints.reflection(), ResilienceEndpoint.class.getDeclaredClasses());
		binding.registerReflectionHints(hints.reflection(), ConnectionPoolStats.class);
		hints.reflection()
			.registerType(Thread.class, (type) -> type.withMethod("ofVirtual", List.of(), ExecutableMode.INVOKE))
			.registerType(TypeReference.of("java.lang.Thread$Builder"),
					(type) -> type
						.withMethod("name", List.of(TypeReference.of(String.class), TypeReference.of(long.class)),
								ExecutableMode.INVOKE)
						.withMethod("factory", List.of(), ExecutableMode.INVOKE))
			.registerType(Executors.class, (type) -> type.withMethod("newThreadPerTaskExecutor",
					List.of(TypeReference.of(ThreadFactory.class)), ExecutableMode.INVOKE));
	}

}
