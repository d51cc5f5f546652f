package dev.resilience.internal;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

/**
 * Drives the attempts of one asynchronous call whose policy is a pure step, such as a retry's or
 * a poll's: makes an attempt (which returns a {@link CompletionStage}), hands its outcome to
 * {@link #judge(Object, Throwable)}, which either schedules the next attempt with
 * {@link #attemptAfter(long)} or ends the call with {@link #complete(Object)} or
 * {@link #fail(Throwable)}. Only the driving lives here; the policy stays in the step, so the
 * blocking and the asynchronous form of a capability decide alike.
 * <p>
 * <b>Threads.</b> Nothing waits: each delay is a task scheduled on the scheduler, and each
 * attempt after the first runs on a scheduler thread. An attempt's stage that completes later,
 * possibly on a foreign thread (an HTTP client's I/O thread), is judged on the scheduler; one
 * that is already complete when returned is judged at once, on the thread that made the attempt.
 * When the scheduler refuses a task, the outcome is judged on the thread at hand rather than
 * lost, and a refused delay goes to {@link #rejected(RejectedExecutionException)}, as does a delay
 * that a scheduler knowing {@link RefusableTask} drops at its shutdown.
 * <p>
 * <b>Cancellation.</b> Cancelling {@link #future()} cancels the pending delay's task and the
 * running attempt's stage ({@code toCompletableFuture().cancel(true)}); no attempt starts after
 * it, and an outcome that arrives after it is ignored.
 * <p>
 * Each call is driven by one instance, and only one of its steps runs at a time: the next step
 * is scheduled by the previous one, so a subclass needs no synchronization of its own state.
 *
 * @param <T> the call's result
 */
public abstract class ScheduledAttempts<T extends @Nullable Object> {

	private final ScheduledExecutorService scheduler;

	private final CompletableFuture<T> future = new CompletableFuture<>();

	/** The scheduled task of the next attempt, or the running attempt's stage: what a cancel cancels. */
	private final AtomicReference<@Nullable Future<?>> pending = new AtomicReference<>();

	/**
	 * Creates the driver of one call.
	 * @param scheduler runs the delays and the attempts after the first
	 */
	protected ScheduledAttempts(ScheduledExecutorService scheduler) {
		this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
		this.future.whenComplete((value, failure) -> cancelPendingIfCancelled());
	}

	/**
	 * Returns the call's future, completed by {@link #complete(Object)} or {@link #fail(Throwable)};
	 * cancelling it stops the call.
	 * @return the future
	 */
	public final CompletableFuture<T> future() {
		return this.future;
	}

	/**
	 * Makes an attempt now, on this thread, unless the call is over. Its outcome is judged when
	 * its stage completes; an attempt that throws, or returns no stage, is judged as failed.
	 */
	public final void attemptNow() {
		if (this.future.isDone()) {
			return;
		}
		CompletableFuture<?> stage;
		try {
			stage = Objects.requireNonNull(invoke(), "The attempt returned no CompletionStage").toCompletableFuture();
		}
		catch (Throwable ex) {
			outcome(null, ex);
			return;
		}
		this.pending.set(stage);
		if (this.future.isCancelled()) {
			// Cancelled while the attempt was being made: the whenComplete of the constructor has run.
			stage.cancel(true);
			return;
		}
		whenComplete(stage, this.scheduler, (value, failure) -> {
			// A call cancelled meanwhile cancelled this stage too: nothing is left to judge.
			if (!this.future.isDone()) {
				outcome(value, failure);
			}
		});
	}

	/**
	 * Makes one attempt.
	 * @return the attempt's stage
	 * @throws Throwable what the attempt throws, judged as its failure
	 */
	protected abstract CompletionStage<?> invoke() throws Throwable;

	/**
	 * Judges the outcome of the attempt just made, and then calls exactly one of
	 * {@link #attemptAfter(long)}, {@link #complete(Object)} and {@link #fail(Throwable)}.
	 * @param value the attempt's value, {@code null} when it failed
	 * @param failure the attempt's failure, unwrapped from a {@link CompletionException};
	 * {@code null} when it returned
	 * @throws Throwable what ends the call, as {@link #fail(Throwable)} would
	 */
	protected abstract void judge(@Nullable Object value, @Nullable Throwable failure) throws Throwable;

	/**
	 * Called when the scheduler refuses the next attempt's delay, such as when it is shut down, or
	 * drops it unrun at its shutdown (a scheduler that knows {@link RefusableTask}). Fails the call
	 * with the refusal unless overridden.
	 * @param refusal the scheduler's exception
	 */
	protected void rejected(RejectedExecutionException refusal) {
		fail(refusal);
	}

	/**
	 * Schedules the next attempt.
	 * @param delayNanos the wait before it, in nanoseconds
	 */
	protected final void attemptAfter(long delayNanos) {
		Future<?> previous = this.pending.get();
		ScheduledFuture<?> task;
		try {
			task = this.scheduler.schedule(RefusableTask.of(this::attemptNow, this::rejected), delayNanos,
					TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			rejected(ex);
			return;
		}
		// The task may have run already, on another thread, and made its attempt: then that
		// attempt's stage is pending, and must not be replaced by this finished task.
		this.pending.compareAndSet(previous, task);
		cancelPendingIfCancelled();
	}

	/**
	 * Ends the call with a value.
	 * @param value the value
	 */
	protected final void complete(T value) {
		this.future.complete(value);
	}

	/**
	 * Ends the call with a failure.
	 * @param failure the failure
	 */
	protected final void fail(Throwable failure) {
		this.future.completeExceptionally(failure);
	}

	/**
	 * Returns what a stage's failure is: the cause of a {@link CompletionException}, which
	 * {@link CompletableFuture} wraps around failures of dependent stages; else the failure itself.
	 * @param failure a stage's failure
	 * @return the failure as the attempt threw it
	 */
	public static Throwable unwrap(Throwable failure) {
		Throwable cause = failure.getCause();
		return (failure instanceof CompletionException && cause != null) ? cause : failure;
	}

	/**
	 * Runs a continuation on the executor, or on this thread when the executor refuses it (it is
	 * shut down): nothing else would run it, and what it completes or gives back would be lost.
	 * @param executor runs the continuation
	 * @param continuation the continuation
	 */
	public static void execute(Executor executor, Runnable continuation) {
		try {
			executor.execute(continuation);
		}
		catch (RejectedExecutionException ex) {
			continuation.run();
		}
	}

	/**
	 * Runs an action when a stage completes: at once, on this thread, when it is complete already;
	 * else on the executor, so that the action never runs on the thread that completes the stage
	 * (such as an HTTP client's I/O thread). When the executor refuses the task (it is shut down),
	 * the action runs on the completing thread rather than never.
	 * @param <V> the stage's value
	 * @param stage the stage
	 * @param executor runs the action when the stage completes later
	 * @param action takes the value or the failure, as {@link CompletionStage#whenComplete} gives them
	 */
	public static <V extends @Nullable Object> void whenComplete(CompletionStage<V> stage, Executor executor,
			BiConsumer<? super V, ? super @Nullable Throwable> action) {
		CompletableFuture<V> future = stage.toCompletableFuture();
		if (future.isDone()) {
			future.whenComplete(action);
			return;
		}
		future.whenComplete((value, failure) -> execute(executor, () -> action.accept(value, failure)));
	}

	private void outcome(@Nullable Object value, @Nullable Throwable failure) {
		if (this.future.isDone()) {
			return;
		}
		try {
			judge(value, (failure != null) ? unwrap(failure) : null);
		}
		catch (Throwable ex) {
			this.future.completeExceptionally(ex);
		}
	}

	private void cancelPendingIfCancelled() {
		Future<?> pending = this.pending.get();
		if (this.future.isCancelled() && pending != null) {
			// A delay's task is not running: cancel(false) leaves alone the thread of an attempt
			// it may have just started. An attempt's stage is cancelled as the caller asked.
			pending.cancel(!(pending instanceof ScheduledFuture));
		}
	}

}
