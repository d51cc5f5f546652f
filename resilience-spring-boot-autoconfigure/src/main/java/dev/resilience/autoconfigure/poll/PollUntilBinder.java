package dev.resilience.autoconfigure.poll;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.support.AnnotationAttributeResolver;
import dev.resilience.autoconfigure.support.AttributeOverlay;
import dev.resilience.autoconfigure.support.MethodBinder;
import dev.resilience.autoconfigure.support.ResilienceConfigurationException;
import dev.resilience.autoconfigure.support.MethodExpression;
import dev.resilience.autoconfigure.support.MethodExpressionEvaluator;
import dev.resilience.autoconfigure.support.ProposedSettings;
import dev.resilience.autoconfigure.support.ReturnKind;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.poll.PollListener;
import dev.resilience.poll.PollSettings;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.poll.PollUntil;

/**
 * Reads the {@link PollUntil @PollUntil} of one method: the named settings, overridden by every
 * attribute the annotation sets ({@link AttributeOverlay}), the {@code until} expression parsed once, and checks that
 * the result of the method can be polled at all.
 */
class PollUntilBinder implements MethodBinder<PolledMethod> {

	private final PollSettingsRegistry registry;

	private final Ticker ticker;

	private final Sleeper sleeper;

	private final List<PollListener> listeners;

	private final MethodExpressionEvaluator expressions;

	private final AnnotationAttributeResolver attributes;

	private final ResilienceObservations observations;

	PollUntilBinder(PollSettingsRegistry registry, Ticker ticker, Sleeper sleeper, List<PollListener> listeners,
			@Nullable ConfigurableListableBeanFactory beanFactory) {
		this.registry = registry;
		this.ticker = ticker;
		this.sleeper = sleeper;
		this.listeners = List.copyOf(listeners);
		this.expressions = new MethodExpressionEvaluator(beanFactory);
		this.attributes = new AnnotationAttributeResolver(beanFactory);
		this.observations = (beanFactory != null)
				? beanFactory.getBeanProvider(ResilienceObservations.class).getIfAvailable(ResilienceObservations::none)
				: ResilienceObservations.none();
	}

	@Override
	public @Nullable PolledMethod bind(Method method, Class<?> targetClass, ReturnKind kind, ProposedSettings proposed) {
		PollUntil annotation = AnnotatedElementUtils.findMergedAnnotation(method, PollUntil.class);
		if (annotation == null) {
			return null;
		}
		String where = "@PollUntil on " + AnnotationAttributeResolver.describe(method);
		String name = this.attributes.resolve(annotation.name(), where + " (name)");
		String untilText = this.attributes.resolve(annotation.until(), where + " (until)");
		checkResultCanBePolled(method, kind, untilText, where);
		MethodExpression until = untilText.isBlank() ? null : this.expressions.parse(untilText, method, where + " (until)",
				Set.of("result"));
		PollSettings settings = settings(annotation, name, where, proposed);
		String meterName = AnnotationAttributeResolver.nameOrMethod(name, method, targetClass);
		return new PolledMethod(meterName, name, settings, until, this.ticker, this.sleeper, this.listeners,
				this.observations);
	}

	private static void checkResultCanBePolled(Method method, ReturnKind kind, String until, String where) {
		Class<?> type = method.getReturnType();
		if (kind == ReturnKind.FLUX) {
			throw new ResilienceConfigurationException(where + " returns a Flux, a stream with no single value to "
					+ "judge; poll a method returning a Mono, a CompletionStage or the value",
					"Return a Mono, a CompletionStage or the value from the method, or remove @PollUntil.");
		}
		if (KotlinDetector.isSuspendingFunction(method)) {
			// The value judged is the function's Kotlin return value: Unit is nothing.
			type = new MethodParameter(method, -1).getParameterType();
		}
		else if (kind == ReturnKind.COMPLETION_STAGE || kind == ReturnKind.MONO) {
			// The value judged is the one the stage or Mono emits: a CompletableFuture<Void> or a
			// Mono<Void> returns nothing, as a void method does.
			type = ResolvableType.forMethodReturnType(method).getGeneric(0).toClass();
		}
		if ((type == void.class || type == Void.class || type.getName().equals("kotlin.Unit")) && until.isBlank()) {
			throw new ResilienceConfigurationException(where + " returns nothing, so the default condition "
					+ "(a present result) could never be met; set until",
					"Set until to a condition over the method's arguments, or return the value to judge.");
		}
	}

	/** The named settings (or the defaults), with each attribute set on the annotation applied over them. */
	private PollSettings settings(PollUntil annotation, String name, String where, ProposedSettings proposed) {
		PollSettings base;
		if (name.isBlank()) {
			base = PollSettings.defaults();
		}
		else {
			AnnotationAttributeResolver.checkConfigured(name, this.registry.getNames(), where, "the poll configuration",
					"resilience.polls");
			base = proposed.get(name, PollSettings.class, this.registry::get);
		}
		PollSettings.Builder builder = base.toBuilder();
		new AttributeOverlay(this.attributes, where).integer(annotation.maxAttempts(), builder::maxAttempts)
			.duration(annotation.delay(), "delay", builder::delay)
			.one(annotation.backoff(), "backoff", builder::backoff)
			.decimal(annotation.multiplier(), builder::multiplier)
			.duration(annotation.maxDelay(), "maxDelay", builder::maxDelay)
			.duration(annotation.timeout(), "timeout", builder::timeout)
			.flag(annotation.ignoreExceptions(), "ignoreExceptions", builder::ignoreExceptions);
		try {
			return builder.build();
		}
		catch (IllegalArgumentException ex) {
			throw new ResilienceConfigurationException(where + ": " + ex.getMessage(),
					"Correct the annotation's attribute"
							+ (name.isBlank() ? "" : ", or the property of resilience.polls." + name + ", named above")
							+ ".",
					ex);
		}
	}

}
