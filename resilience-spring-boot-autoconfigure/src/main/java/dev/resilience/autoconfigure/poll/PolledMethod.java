package dev.resilience.autoconfigure.poll;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.autoconfigure.support.MethodExpression;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.poll.PollListener;
import dev.resilience.poll.PollSettings;
import dev.resilience.poll.Poller;

/**
 * The {@code @PollUntil} of one method, read and checked: the settings, the meters' name and
 * the parsed condition. Immutable.
 */
final class PolledMethod {

	/** The supplier of a poller that polls stages, which it never calls. */
	private static final Supplier<@Nullable Object> NO_SUPPLIER = () -> {
		throw new IllegalStateException("A poll of stages has no supplier of values");
	};

	private final String name;

	/** The named settings the annotation names, empty for the built-in defaults. */
	private final String settingsName;

	private final PollSettings settings;

	private final @Nullable MethodExpression until;

	private final Ticker ticker;

	private final Sleeper sleeper;

	private final List<PollListener> listeners;

	private final ResilienceObservations observations;

	PolledMethod(String name, String settingsName, PollSettings settings, @Nullable MethodExpression until,
			Ticker ticker, Sleeper sleeper, List<PollListener> listeners, ResilienceObservations observations) {
		this.observations = observations;
		this.name = name;
		this.settingsName = settingsName;
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

	/** The named settings the annotation names, empty for the built-in defaults. */
	String settingsName() {
		return this.settingsName;
	}

	/** The {@code until} expression as written, or {@code null} for the default condition. */
	@Nullable String untilText() {
		return (this.until != null) ? this.until.getExpressionString() : null;
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
			.sleeper(this.sleeper)
			.observations(this.observations);
		this.listeners.forEach(builder::listener);
		return builder.build();
	}

	/**
	 * Polls one call of a method that returns a stage, asynchronously: each attempt invokes the
	 * method again, {@code until} reads the stage's value, and the delays are scheduled, as
	 * {@link Poller#awaitAsync(Supplier, ScheduledExecutorService)} does with this method's
	 * settings, name, clock and listeners.
	 * @param attempt invokes the method once, returning its stage
	 * @param arguments the call's arguments, over which {@code until} is evaluated
	 * @param scheduler runs the delays and the attempts after the first
	 * @return the poll's future, with the outcomes and exceptions of the blocking form;
	 * cancelling it cancels the pending delay and the running attempt
	 */
	public CompletableFuture<@Nullable Object> callAsync(Supplier<? extends CompletionStage<?>> attempt,
			@Nullable Object[] arguments, ScheduledExecutorService scheduler) {
		return poller(NO_SUPPLIER, arguments).awaitAsync(attempt, scheduler);
	}

	private boolean isMet(@Nullable Object result, @Nullable Object[] arguments) {
		MethodExpression until = this.until;
		if (until == null) {
			return Poller.isPresent(result);
		}
		return until.evaluateCondition(arguments, Collections.singletonMap("result", result));
	}

}
