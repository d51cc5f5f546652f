package dev.resilience.autoconfigure.support;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.context.ContextSnapshot;

import dev.resilience.internal.RefusableTask;

/**
 * The scheduler as one asynchronous call sees it: every task it is given runs with the caller's
 * context restored (its MDC, observation, security context), so that what a capability runs on
 * the scheduler for the call (the next attempt, a condition, a listener, a fallback, the
 * completion of the caller's future) sees what the blocking form would see on the caller's
 * thread ({@code submit} and the {@code invoke} methods go through {@link #execute}). Shutting it
 * down is the application's business, not a call's: those methods are refused.
 */
final class ContextRestoringScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private final ScheduledExecutorService scheduler;

	private final ContextSnapshot context;

	ContextRestoringScheduler(ScheduledExecutorService scheduler, ContextSnapshot context) {
		this.scheduler = scheduler;
		this.context = context;
	}

	@Override
	public void execute(Runnable command) {
		this.scheduler.execute(this.context.wrap(command));
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		Runnable wrapped = this.context.wrap(command);
		// A task that wants to hear of its refusal still does through the context's wrapper.
		return this.scheduler.schedule((command instanceof RefusableTask refusable)
				? RefusableTask.of(wrapped, refusable::refuse) : wrapped, delay, unit);
	}

	@Override
	public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		return this.scheduler.schedule(this.context.wrap(callable), delay, unit);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
		return this.scheduler.scheduleAtFixedRate(this.context.wrap(command), initialDelay, period, unit);
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		return this.scheduler.scheduleWithFixedDelay(this.context.wrap(command), initialDelay, delay, unit);
	}

	@Override
	public boolean isShutdown() {
		return this.scheduler.isShutdown();
	}

	@Override
	public boolean isTerminated() {
		return this.scheduler.isTerminated();
	}

	@Override
	public void shutdown() {
		throw notACallsBusiness();
	}

	@Override
	public List<Runnable> shutdownNow() {
		throw notACallsBusiness();
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		throw notACallsBusiness();
	}

	private static UnsupportedOperationException notACallsBusiness() {
		return new UnsupportedOperationException(
				"The scheduler of one call cannot be shut down: it is the application's resilienceScheduler");
	}

}
