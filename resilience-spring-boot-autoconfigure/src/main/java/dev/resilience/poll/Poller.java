package dev.resilience.poll;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.resilience.Sleeper;
import dev.resilience.Ticker;
import dev.resilience.internal.Causes;
import dev.resilience.internal.DurationText;
import dev.resilience.internal.Durations;
import dev.resilience.internal.Listeners;
import dev.resilience.internal.ScheduledAttempts;
import dev.resilience.observation.ResilienceObservation;
import dev.resilience.observation.ResilienceObservations;
import dev.resilience.retry.Backoff;

/**
 * Calls a supplier until a predicate accepts its value: production code's way to wait for a
 * condition, such as an export that is {@code DONE}. The first attempt is made at once, the
 * following ones after the delays of the settings' {@link dev.resilience.retry.BackoffPolicy}
 * (10, 20, 30, 40 ms by default), until the condition is met, the attempts are used up or the
 * next attempt would begin past the timeout. Three ways to run it:
 * <ul>
 * <li>{@link #await()} blocks and returns the value or throws {@link PollExhaustedException};</li>
 * <li>{@link #awaitAsync(ScheduledExecutorService)} returns a {@link CompletableFuture} completed by
 * attempts scheduled one after another, no thread blocked between them;</li>
 * <li>{@link #awaitAsync(Supplier, ScheduledExecutorService)} does the same with attempts that
 * return a {@link CompletionStage}, such as calls of an asynchronous method;</li>
 * <li>{@link #pollOnce(PollState)} makes one attempt and returns the next immutable
 * {@link PollState}, so a caller can schedule the next attempt itself.</li>
 * </ul>
 * All of them judge each attempt's outcome by one step, so they end alike.
 * <p>
 * <b>Timeout.</b> Counted from the start of the first attempt. An attempt that would begin past
 * it is not made: the poll ends at once, exhausted, rather than waiting in vain, so it never
 * outlasts its timeout by more than its last attempt. An attempt that blocks is never cut short;
 * an attempt's stage ({@link #awaitAsync(Supplier, ScheduledExecutorService)}) still running at the
 * timeout is cancelled, and the poll ends exhausted then, the attempt counted as unmet with a
 * {@link TimeoutException}.
 * <p>
 * <b>Exceptions.</b> An exception of the supplier ends the poll as itself, unless
 * {@link PollSettings#ignoreExceptions()}: then it counts as an unmet attempt and is recorded in
 * the history. An exception of the predicate always ends the poll. {@link Error}s are never
 * ignored, nor an interruption ({@link Causes#isInterruption(Throwable)}): it sets the thread's
 * interrupt flag again and ends the poll with a {@link CancellationException}.
 * <p>
 * A poller is immutable and thread safe; each {@code await} or {@code awaitAsync} is a poll of
 * its own.
 *
 * @param <T> the type of the polled value
 */
public final class Poller<T> {

	private static final System.Logger logger = System.getLogger(Poller.class.getName());

	private final Supplier<? extends T> supplier;

	private final Predicate<? super T> condition;

	private final PollSettings settings;

	private final String name;

	private final Ticker ticker;

	private final Sleeper sleeper;

	private final List<PollListener> listeners;

	private final ResilienceObservations observations;

	private Poller(Builder<T> builder, PollSettings settings) {
		this.supplier = builder.supplier;
		this.condition = builder.condition;
		this.settings = settings;
		this.name = builder.name;
		this.ticker = builder.ticker;
		this.sleeper = builder.sleeper;
		this.listeners = List.copyOf(builder.listeners);
		this.observations = builder.observations;
	}

	/**
	 * Returns a builder of a poller that waits until the value is {@link #isPresent(Object) present}.
	 * @param <T> the type of the polled value
	 * @param supplier makes one attempt
	 * @return a new builder with the default settings
	 */
	public static <T> Builder<T> builder(Supplier<? extends T> supplier) {
		return builder(supplier, Poller::isPresent);
	}

	/**
	 * Returns a builder of a poller that waits until the condition accepts the value.
	 * @param <T> the type of the polled value
	 * @param supplier makes one attempt
	 * @param condition {@code true} ends the poll
	 * @return a new builder with the default settings
	 */
	public static <T> Builder<T> builder(Supplier<? extends T> supplier, Predicate<? super T> condition) {
		return new Builder<>(supplier, condition);
	}

	/**
	 * The default condition: the value is present, that is not {@code null}, not
	 * {@link Boolean#FALSE} and not an empty {@link Optional}.
	 * @param value the value
	 * @return whether it is present
	 */
	public static boolean isPresent(@Nullable Object value) {
		return value != null && !Boolean.FALSE.equals(value) && !(value instanceof Optional<?> optional && optional.isEmpty());
	}

	/**
	 * Returns the settings.
	 * @return the settings
	 */
	public PollSettings getSettings() {
		return this.settings;
	}

	/**
	 * Returns the name listeners are told.
	 * @return the name
	 */
	public String getName() {
		return this.name;
	}

	/**
	 * Returns the state before the first attempt: no attempts, the next one at once.
	 * @return the initial state
	 */
	public PollState<T> initialState() {
		return PollState.initial();
	}

	/**
	 * Makes exactly one attempt now, whatever the state's next delay (the caller waited it), and
	 * returns the state after it: fulfilled, exhausted, or with the delay before the next attempt.
	 * Listeners are told when the returned state is over.
	 * @param state the state before the attempt, from {@link #initialState()} or an earlier
	 * {@code pollOnce} of this poller
	 * @return the new state
	 * @throws IllegalStateException if the state is already over
	 * @throws CancellationException when exceptions are ignored but the supplier's is an
	 * interruption; the thread's interrupt flag is set again
	 * @throws RuntimeException what the supplier throws, unless exceptions are ignored, and what
	 * the condition throws
	 */
	public PollState<T> pollOnce(PollState<T> state) {
		long startedAt = attemptStarting(state);
		T value = null;
		Exception failure = null;
		try {
			value = supply();
		}
		catch (Exception ex) {
			failure = ex;
		}
		return judge(state, startedAt, value, failure);
	}

	/** Calls the supplier once. */
	private T supply() {
		try {
			return this.supplier.get();
		}
		catch (Exception ex) {
			if (this.settings.ignoreExceptions() && Causes.isInterruption(ex)) {
				// Someone wants this thread to stop: ignoring that would poll on against their will.
				Thread.currentThread().interrupt();
			}
			throw ex;
		}
	}

	/**
	 * Checks that the state allows another attempt and returns the ticker reading the timeout
	 * counts from: read now for the first attempt, kept in the state after it. The clock is read
	 * only for a timeout: a poll without one never needs the time.
	 */
	private long attemptStarting(PollState<T> state) {
		if (state.isDone()) {
			throw new IllegalStateException("The poll is over; start a new one with initialState()");
		}
		if (this.settings.timeout() == null) {
			return 0;
		}
		return (state.getAttemptCount() == 0) ? this.ticker.read() : state.startedAt();
	}

	/**
	 * The policy, shared by every way to run a poll: judges one attempt's outcome and returns the
	 * state after it, fulfilled, exhausted, or with the delay before the next attempt. Listeners
	 * are told when the returned state is over. A failure ends the poll as itself (thrown as it is,
	 * checked or not), unless exceptions are ignored and it is an {@link Exception}: then it is an
	 * unmet attempt, or, when it is an interruption, a {@link CancellationException}.
	 */
	private PollState<T> judge(PollState<T> state, long startedAt, @Nullable T value, @Nullable Throwable failure) {
		Duration delayBefore = Objects.requireNonNull(state.nextDelay());
		int number = state.getAttemptCount() + 1;
		Exception ignored = null;
		if (failure != null) {
			if (!this.settings.ignoreExceptions() || !(failure instanceof Exception exception)) {
				throw Poller.<RuntimeException>sneakyThrow(failure);
			}
			if (Causes.isInterruption(exception)) {
				throw interrupted(number, exception);
			}
			ignored = exception;
			value = null;
		}
		boolean fulfilled = ignored == null && this.condition.test(value);
		PollAttempt<T> attempt = new PollAttempt<>(number, delayBefore, fulfilled, value, ignored);
		PollState<T> next;
		if (fulfilled || number == this.settings.maxAttempts()) {
			next = state.next(attempt, startedAt, null, false);
		}
		else {
			Duration delay = this.settings.backoffPolicy().delayAfter(number);
			boolean timedOut = this.settings.timeout() != null && beginsPastTimeout(startedAt, delay);
			next = state.next(attempt, startedAt, timedOut ? null : delay, timedOut);
		}
		if (next.isDone()) {
			tellListeners(next);
		}
		return next;
	}

	/**
	 * The state after an asynchronous attempt still running at the timeout: the attempt counts, as
	 * unmet, with a {@link TimeoutException} as its exception, and the poll is exhausted by its
	 * timeout. Listeners are told.
	 */
	private PollState<T> cutShort(PollState<T> state, long startedAt) {
		int number = state.getAttemptCount() + 1;
		Duration timeout = Objects.requireNonNull(this.settings.timeout());
		TimeoutException unfinished = new TimeoutException(
				"Attempt " + number + " was still running at the timeout of " + DurationText.of(timeout));
		PollAttempt<T> attempt = new PollAttempt<>(number, Objects.requireNonNull(state.nextDelay()), false, null,
				unfinished);
		PollState<T> next = state.next(attempt, startedAt, null, true);
		tellListeners(next);
		return next;
	}

	/** Throws a checked failure of a stage unchanged, so the caller receives what the attempt failed with. */
	@SuppressWarnings("unchecked")
	private static <E extends Throwable> E sneakyThrow(Throwable failure) throws E {
		throw (E) failure;
	}

	/**
	 * Whether an attempt after the delay from now would begin past the timeout, which is set. In
	 * saturated nanoseconds: a delay or timeout of hundreds of years, as a user may write to mean
	 * "never", neither overflows nor throws.
	 */
	private boolean beginsPastTimeout(long startedAt, Duration delay) {
		long elapsed = this.ticker.read() - startedAt;
		long timeout = Durations.saturatedNanos(Objects.requireNonNull(this.settings.timeout()));
		return Durations.saturatedAdd(elapsed, Durations.saturatedNanos(delay)) > timeout;
	}

	private void tellListeners(PollState<T> state) {
		if (this.listeners.isEmpty()) {
			return;
		}
		PollHistory<T> history = state.getHistory();
		Listeners.tell(this.listeners, (listener) -> listener.onPollEnded(this.name, history), logger, "Poll listener");
	}

	/**
	 * Polls on this thread, sleeping between attempts, until the condition is met.
	 * @return the value that met the condition
	 * @throws PollExhaustedException if the attempts ran out or the timeout came first
	 * @throws CancellationException if the thread is interrupted while waiting between attempts or
	 * before the next one, or an ignored exception of an attempt is an interruption; its interrupt
	 * flag stays set and no further attempt is made
	 * @throws RuntimeException what the supplier throws, unless exceptions are ignored, and what
	 * the condition throws
	 */
	public T await() {
		Observation observation = this.observations.start(ResilienceObservation.POLL, this.name, null, null);
		T result;
		try {
			result = poll(observation);
		}
		catch (Throwable ex) {
			stop(observation, ex);
			throw ex;
		}
		stop(observation, null);
		return result;
	}

	private T poll(Observation observation) {
		PollState<T> state = attempt(initialState(), observation);
		while (!state.isDone()) {
			try {
				this.sleeper.sleep(nanos(state));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw interrupted(state.getAttemptCount(), ex);
			}
			// A zero delay does not sleep, so the flag is the only way to learn of an interrupt.
			if (Thread.currentThread().isInterrupted()) {
				throw interrupted(state.getAttemptCount(), null);
			}
			state = attempt(state, observation);
		}
		return result(state);
	}

	/** Makes one attempt of an observed poll. */
	private PollState<T> attempt(PollState<T> state, Observation observation) {
		PollState<T> next = pollOnce(state);
		observed(observation, next);
		return next;
	}

	/** Counts an attempt of the poll's observation. */
	private static void observed(Observation observation, PollState<?> state) {
		ResilienceObservations.attempted(observation, state.getAttemptCount(), 0);
	}

	/**
	 * Stops a poll's observation: {@code fulfilled} unless it failed, {@code exhausted} when the
	 * attempts or the time ran out, {@code cancelled} when it was interrupted or cancelled,
	 * {@code error} when an attempt or the condition threw.
	 */
	private static void stop(Observation observation, @Nullable Throwable failure) {
		Throwable cause = (failure != null) ? ScheduledAttempts.unwrap(failure) : null;
		if (cause == null) {
			ResilienceObservations.stop(observation, "fulfilled", null);
		}
		else if (cause instanceof PollExhaustedException) {
			ResilienceObservations.stop(observation, "exhausted", cause);
		}
		else if (cause instanceof CancellationException) {
			ResilienceObservations.stop(observation, "cancelled", null);
		}
		else {
			ResilienceObservations.stop(observation, "error", cause);
		}
	}

	private static CancellationException interrupted(int attempts, @Nullable Throwable cause) {
		CancellationException cancelled = new CancellationException(
				"Polling was interrupted after " + attempts + ((attempts == 1) ? " attempt" : " attempts"));
		cancelled.initCause(cause);
		return cancelled;
	}

	/**
	 * Polls on a scheduler: each attempt is a task scheduled after the previous one's delay, so no
	 * thread is blocked between attempts. The first attempt is scheduled at once.
	 * @param scheduler runs the attempts
	 * @return a future completed with the value that met the condition, or exceptionally with
	 * {@link PollExhaustedException} or what an attempt threw; cancelling it stops the polling; a
	 * scheduler that refuses the next attempt (shut down) fails it with a
	 * {@link RejectedExecutionException} naming the poll
	 */
	public CompletableFuture<T> awaitAsync(ScheduledExecutorService scheduler) {
		AsyncPoll poll = new AsyncPoll(this::supplied, scheduler);
		observe(poll.future(), poll.observation);
		poll.attemptSoon();
		return poll.future();
	}

	/**
	 * One call of the supplier as a stage. What it throws fails the stage wrapped once more in a
	 * {@link CompletionException}, which the driver takes off again: the attempt is judged with
	 * exactly what the supplier threw, as {@link #await()} judges it.
	 */
	private CompletionStage<T> supplied() {
		try {
			return CompletableFuture.completedFuture(supply());
		}
		catch (Exception ex) {
			return CompletableFuture.failedFuture(new CompletionException(ex));
		}
	}

	/** Stops a poll's observation when its future completes, however it does. */
	private static void observe(CompletableFuture<?> future, Observation observation) {
		if (!observation.isNoop()) {
			future.whenComplete((value, failure) -> stop(observation, failure));
		}
	}

	/**
	 * Polls with attempts that each return a stage, such as calls of a method returning a
	 * {@code CompletableFuture}, in place of this poller's supplier; everything else (settings,
	 * condition, name, clock, listeners) is this poller's, and so are the outcomes, exceptions and
	 * histories. Returns at once: the first attempt is made on this thread, each later one on the
	 * scheduler once its delay, scheduled there, has passed; no thread waits. An attempt that
	 * throws, or whose stage fails, is a failure of the attempt (ignored or not, as the settings
	 * say); the stage's value is the attempt's value. A stage that completes later is judged on the
	 * scheduler, never on the thread that completed it.
	 * @param attempts makes one attempt and returns its stage
	 * @param scheduler runs the delays and the attempts after the first
	 * @return a future completed with the value that met the condition, or exceptionally with
	 * {@link PollExhaustedException} (at the timeout at the latest, cancelling an attempt's stage
	 * still running then) or what an attempt failed with; cancelling it cancels the pending delay
	 * and the running attempt's stage, and no further attempt starts
	 */
	public CompletableFuture<T> awaitAsync(Supplier<? extends CompletionStage<? extends T>> attempts,
			ScheduledExecutorService scheduler) {
		AsyncPoll poll = new AsyncPoll(Objects.requireNonNull(attempts, "attempts"), scheduler);
		observe(poll.future(), poll.observation);
		poll.attemptNow();
		return poll.future();
	}

	private static long nanos(PollState<?> state) {
		return Durations.saturatedNanos(Objects.requireNonNull(state.nextDelay()));
	}

	private T result(PollState<T> state) {
		if (state.isFulfilled()) {
			return state.getValue();
		}
		throw new PollExhaustedException(state.getHistory(), state.isTimedOut() ? this.settings.timeout() : null);
	}

	/**
	 * One asynchronous poll: the judging step driven by {@link ScheduledAttempts}, for attempts that
	 * are stages or calls of the supplier. An attempt still running at the timeout is cut short.
	 */
	private final class AsyncPoll extends ScheduledAttempts<T> {

		/** What {@link #inFlight} holds once the deadline has ended the attempt in flight. */
		private static final Object CUT_SHORT = new Object();

		private final Supplier<? extends CompletionStage<? extends T>> attempts;

		private final ScheduledExecutorService scheduler;

		private PollState<T> state = initialState();

		private long startedAt;

		/**
		 * The stage of an attempt in flight that the deadline may cut short, until its outcome or
		 * the deadline claims it: each ends the attempt only if it takes it from the other.
		 */
		private final AtomicReference<@Nullable Object> inFlight = new AtomicReference<>();

		/** The deadline of the attempt in flight, cancelled once it ended. */
		private volatile @Nullable Future<?> deadline;

		/** Started on the caller's thread, so the caller's observation is its parent. */
		final Observation observation = Poller.this.observations.start(ResilienceObservation.POLL, Poller.this.name,
				null, null);

		AsyncPoll(Supplier<? extends CompletionStage<? extends T>> attempts, ScheduledExecutorService scheduler) {
			super(scheduler);
			this.attempts = attempts;
			this.scheduler = scheduler;
			future().whenComplete((value, failure) -> cancelDeadline());
		}

		/** Schedules the first attempt at once, as {@link #awaitAsync(ScheduledExecutorService)} does. */
		void attemptSoon() {
			attemptAfter(0);
		}

		@Override
		protected CompletionStage<?> invoke() {
			this.startedAt = attemptStarting(this.state);
			CompletionStage<? extends T> stage = this.attempts.get();
			Duration timeout = Poller.this.settings.timeout();
			CompletableFuture<? extends T> running = (stage != null) ? stage.toCompletableFuture() : null;
			if (timeout != null && running != null && !running.isDone()) {
				armDeadline(running, timeout);
			}
			return stage;
		}

		/** Cuts the attempt short when it is still running at the poll's timeout. */
		private void armDeadline(CompletableFuture<?> running, Duration timeout) {
			this.inFlight.set(running);
			long left = Durations.saturatedNanos(timeout) - (Poller.this.ticker.read() - this.startedAt);
			try {
				this.deadline = this.scheduler.schedule(() -> cutShort(running), Math.max(left, 0), TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				// No deadline can be kept: the attempt runs to its end, as it did before it had one.
				this.inFlight.set(null);
			}
		}

		private void cutShort(CompletableFuture<?> running) {
			if (future().isDone() || !this.inFlight.compareAndSet(running, CUT_SHORT)) {
				return;
			}
			// Cancelled first, so the caller learns of the end once the attempt is stopped; the
			// outcome the cancellation gives is the attempt's no longer, as the deadline claimed it.
			running.cancel(true);
			PollState<T> next = Poller.this.cutShort(this.state, this.startedAt);
			observed(this.observation, next);
			fail(new PollExhaustedException(next.getHistory(), Poller.this.settings.timeout()));
		}

		private void cancelDeadline() {
			Future<?> deadline = this.deadline;
			if (deadline != null) {
				deadline.cancel(false);
			}
		}

		@Override
		@SuppressWarnings("unchecked")
		protected void judge(@Nullable Object value, @Nullable Throwable failure) {
			if (this.inFlight.getAndSet(null) == CUT_SHORT) {
				return; // the deadline ended the poll
			}
			cancelDeadline();
			PollState<T> next = Poller.this.judge(this.state, this.startedAt, (T) value, failure);
			observed(this.observation, next);
			this.state = next;
			if (next.isDone()) {
				complete(result(next));
			}
			else {
				attemptAfter(nanos(next));
			}
		}

		@Override
		protected void rejected(RejectedExecutionException refusal) {
			int attempts = this.state.getAttemptCount();
			fail(new RejectedExecutionException("Poll '" + Poller.this.name + "' stopped after " + attempts
					+ ((attempts == 1) ? " attempt" : " attempts") + ": its scheduler refused the next one ("
					+ refusal.getMessage() + ")", refusal));
		}

	}

	/**
	 * Builds a {@link Poller}.
	 *
	 * @param <T> the type of the polled value
	 */
	public static final class Builder<T> {

		private final Supplier<? extends T> supplier;

		private final Predicate<? super T> condition;

		private PollSettings settings = PollSettings.defaults();

		/** Changes to {@link #settings}, made only when a setting is changed one by one. */
		private PollSettings.@Nullable Builder changes;

		private String name = "poller";

		private Ticker ticker = Ticker.system();

		private Sleeper sleeper = Sleeper.system();

		private final List<PollListener> listeners = new ArrayList<>();

		private ResilienceObservations observations = ResilienceObservations.none();

		private Builder(Supplier<? extends T> supplier, Predicate<? super T> condition) {
			this.supplier = Objects.requireNonNull(supplier, "supplier");
			this.condition = Objects.requireNonNull(condition, "condition");
		}

		/**
		 * Takes every setting from the given settings, replacing those set before; later calls
		 * such as {@link #timeout(Duration)} change them again.
		 * @param settings the settings, such as a named one of a {@link PollSettingsRegistry}
		 * @return this builder
		 */
		public Builder<T> settings(PollSettings settings) {
			this.settings = Objects.requireNonNull(settings, "settings");
			this.changes = null;
			return this;
		}

		private PollSettings.Builder changes() {
			PollSettings.Builder changes = this.changes;
			if (changes == null) {
				changes = this.settings.toBuilder();
				this.changes = changes;
			}
			return changes;
		}

		/**
		 * Sets the first delay, 10 ms by default.
		 * @param delay the wait after the first attempt, zero or more
		 * @return this builder
		 */
		public Builder<T> delay(Duration delay) {
			changes().delay(delay);
			return this;
		}

		/**
		 * Sets how the delay grows, {@code LINEAR} by default.
		 * @param backoff the growth
		 * @return this builder
		 */
		public Builder<T> backoff(Backoff backoff) {
			changes().backoff(backoff);
			return this;
		}

		/**
		 * Sets the growth factor of {@code EXPONENTIAL}, 2 by default.
		 * @param multiplier the factor, finite and at least 1
		 * @return this builder
		 */
		public Builder<T> multiplier(double multiplier) {
			changes().multiplier(multiplier);
			return this;
		}

		/**
		 * Sets the cap on one delay, 10 s by default.
		 * @param maxDelay the cap, at least the first delay
		 * @return this builder
		 */
		public Builder<T> maxDelay(Duration maxDelay) {
			changes().maxDelay(maxDelay);
			return this;
		}

		/**
		 * Sets the number of attempts in all, 5 by default.
		 * @param maxAttempts at least 1, or {@link PollSettings#UNLIMITED} with a timeout
		 * @return this builder
		 */
		public Builder<T> maxAttempts(int maxAttempts) {
			changes().maxAttempts(maxAttempts);
			return this;
		}

		/**
		 * Sets the overall deadline, none by default.
		 * @param timeout the deadline, positive, or {@code null} for none
		 * @return this builder
		 */
		public Builder<T> timeout(@Nullable Duration timeout) {
			changes().timeout(timeout);
			return this;
		}

		/**
		 * Sets whether an exception of the supplier counts as an unmet attempt, {@code false} by
		 * default.
		 * @param ignoreExceptions whether to ignore exceptions
		 * @return this builder
		 */
		public Builder<T> ignoreExceptions(boolean ignoreExceptions) {
			changes().ignoreExceptions(ignoreExceptions);
			return this;
		}

		/**
		 * Sets the name listeners are told, {@code poller} by default.
		 * @param name the name
		 * @return this builder
		 */
		public Builder<T> name(String name) {
			this.name = Objects.requireNonNull(name, "name");
			return this;
		}

		/**
		 * Sets the clock the timeout is measured with, {@link Ticker#system()} by default.
		 * @param ticker the clock
		 * @return this builder
		 */
		public Builder<T> ticker(Ticker ticker) {
			this.ticker = Objects.requireNonNull(ticker, "ticker");
			return this;
		}

		/**
		 * Sets how {@link Poller#await()} waits between attempts, {@link Sleeper#system()} by
		 * default.
		 * @param sleeper the sleeper
		 * @return this builder
		 */
		public Builder<T> sleeper(Sleeper sleeper) {
			this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
			return this;
		}

		/**
		 * Sets where the polls are observed ({@code resilience.poll}); none by default. Polls run
		 * by {@link Poller#await()} and {@code awaitAsync} are observed, not those driven by
		 * {@link Poller#pollOnce(PollState)}.
		 * @param observations the observations
		 * @return this builder
		 */
		public Builder<T> observations(ResilienceObservations observations) {
			this.observations = Objects.requireNonNull(observations, "observations");
			return this;
		}

		/**
		 * Adds a listener told of every poll that ends fulfilled or exhausted.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder<T> listener(PollListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener"));
			return this;
		}

		/**
		 * Checks the settings and builds the poller.
		 * @return the poller
		 * @throws IllegalArgumentException naming a setting that is out of range, or when
		 * attempts are unlimited without a timeout
		 */
		public Poller<T> build() {
			return new Poller<>(this, changes().build());
		}

	}

}
