package dev.resilience.autoconfigure.poll;

import java.util.List;
import java.util.SortedMap;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.support.AnnotatedMethods;
import dev.resilience.poll.PollListener;
import dev.resilience.poll.PollSettings;
import dev.resilience.poll.PollSettingsRegistry;
import dev.resilience.poll.PollUntil;

/**
 * The {@link PollUntil @PollUntil} methods of the application, each read once: settings looked
 * up and overridden, durations parsed and {@code until} parsed. Every singleton bean is checked
 * when the context starts, so a mistake stops the application with a message naming the method.
 */
public class PolledMethods extends AnnotatedMethods<PolledMethod> {

	/**
	 * Creates the method cache.
	 * @param registry the named settings the annotations refer to
	 * @param ticker the clock timeouts are measured with
	 * @param sleeper how a poll waits between attempts
	 * @param listeners told of every poll that ends
	 * @param beanFactory resolves placeholders and {@code @bean} references, and lists the beans
	 * checked at startup; {@code null} for none
	 */
	public PolledMethods(PollSettingsRegistry registry, Ticker ticker, Sleeper sleeper, List<PollListener> listeners,
			@Nullable ConfigurableListableBeanFactory beanFactory) {
		super(PollUntil.class, new PollUntilBinder(registry, ticker, sleeper, listeners, beanFactory), beanFactory);
	}

	/**
	 * Returns the methods read so far (every annotated method of a singleton bean once the context
	 * has started) with the poll each runs with.
	 * @return the methods by name, such as {@code com.example.Client.fetch(String, long)}
	 */
	public SortedMap<String, MethodPoll> polls() {
		return describeBound((method) -> new MethodPoll(method.getName(),
				method.settingsName().isBlank() ? null : method.settingsName(), method.getSettings(),
				method.untilText()));
	}

	/**
	 * The {@code @PollUntil} of a method, with the settings it is bound with.
	 *
	 * @param name the poll's name in meters and events: the named settings', else
	 * {@code ClassName.method}
	 * @param configured the named settings the annotation names, or {@code null} for the built-in
	 * defaults
	 * @param settings the named settings with the attributes the annotation sets laid over them
	 * @param until the {@code until} expression as written, or {@code null} for "the result is
	 * present"
	 */
	public record MethodPoll(String name, @Nullable String configured, PollSettings settings,
			@Nullable String until) {
	}

}
