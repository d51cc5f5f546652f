package dev.resilience.autoconfigure.poll;

import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.support.MethodExpression;
import dev.resilience.poll.PollListener;
import dev.resilience.poll.PollSettings;
import dev.resilience.poll.Poller;

/**
 * The {@code @PollUntil} of one method, read and checked: the settings, the meters' name and
 * the parsed condition. Immutable.
 */
public final class PolledMethod {

	private final String name;

	private final PollSettings settings;

	private final @Nullable MethodExpression until;

	private final Ticker ticker;

	private final Sleeper sleeper;

	private final List<PollListener> listeners;

	PolledMethod(String name, PollSettings settings, @Nullable MethodExpression until, Ticker ticker, Sleeper sleeper,
			List<PollListener> listeners) {
		this.name = name;
		this.settings = settings;
		this.until = until;
		this.ticker = ticker;
		this.sleeper = sleeper;
		this.listeners = List.copyOf(listeners);
	}

	/**
	 * Returns the name of the meters: the annotation's {@code name}, or {@code ClassName.method}.
	 * @return the name
	 */
	public String getName() {
		return this.name;
	}

	/**
	 * Returns the settings: the named ones with the annotation's attributes applied.
	 * @return the settings
	 */
	public PollSettings getSettings() {
		return this.settings;
	}

	/**
	 * Returns the poller of one call.
	 * @param attempt calls the method once
	 * @param arguments the call's arguments, over which {@code until} is evaluated
	 * @return the poller
	 */
	public Poller<@Nullable Object> poller(Supplier<@Nullable Object> attempt, @Nullable Object[] arguments) {
		Poller.Builder<@Nullable Object> builder = Poller.<@Nullable Object>builder(attempt, (result) -> isMet(result, arguments))
			.settings(this.settings)
			.name(this.name)
			.ticker(this.ticker)
			.sleeper(this.sleeper);
		this.listeners.forEach(builder::listener);
		return builder.build();
	}

	private boolean isMet(@Nullable Object result, @Nullable Object[] arguments) {
		MethodExpression until = this.until;
		if (until == null) {
			return Poller.isPresent(result);
		}
		return until.evaluateCondition(arguments, Collections.singletonMap("result", result));
	}

}
