package dev.resilience.ratelimit.store;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.resilience.Ticker;
import dev.resilience.internal.RefusableTask;
import dev.resilience.internal.ScheduledAttempts;
import dev.resilience.ratelimit.Permit;
import dev.resilience.ratelimit.RateLimitRequest;
import dev.resilience.ratelimit.Reservation;

/**
 * Drives an {@link Acquisition} without holding a thread: decisions through
 * {@link dev.resilience.ratelimit.RateLimiter#reserveAsync}, slot waits with
 * {@link ScheduledExecutorService#schedule}, permit waits with
 * {@link dev.resilience.ratelimit.RateLimiter#awaitPermitAsync}. Steps run on the caller's thread
 * until the first one that must wait, then on the scheduler: a store's future may complete on its
 * client's I/O thread, so its continuation hops to the scheduler before anything that can run user
 * code (listeners, the caller's own continuations of the returned future).
 * <p>
 * Ownership: at any moment at most one party owns the acquisition's state. A step that runs owns
 * it ({@link #running}); while a step waits, nobody does, and the wait's continuation takes it
 * back only if it is still the {@link #pending} one. Whoever sets {@link #finished} (the step that
 * admits, rejects or fails, or the caller's cancellation while nothing runs) gives back what is
 * held, so every reservation is given back exactly once. A cancellation while a step runs is
 * seen by that step at its next hand-over. A decision in flight is never cancelled (the store may
 * have taken the slot already): its continuation gives back what it brings when the call is over.
 * When admission races with a cancellation and wins, the permit is closed.
 */
final class AsyncAcquisition {

	private static final System.Logger logger = System.getLogger(AsyncAcquisition.class.getName());

	private final ScheduledExecutorService scheduler;

	private final CompletableFuture<Permit> result = new CompletableFuture<>();

	private final Acquisition acquisition;

	/** The first decision, asked before this driver started; taken by the first reservation step. */
	private @Nullable CompletableFuture<Reservation> firstDecision;

	/** Whether a step owns the acquisition; guarded by this. */
	private boolean running = true;

	/** Whether the call is over, its reservations admitted or given back; guarded by this. */
	private boolean finished;

	/** The wait whose continuation may take the acquisition back; guarded by this. */
	private @Nullable Pending pending;

	private AsyncAcquisition(Acquisition acquisition, ScheduledExecutorService scheduler) {
		this.acquisition = acquisition;
		this.scheduler = scheduler;
	}

	/**
	 * Starts a call on the caller's thread.
	 * @param acquirer tells the listeners
	 * @param ticker the clock
	 * @param permitWaitClock bounds the waits for a returned permit
	 * @param requests one per limiter, checked in order
	 * @param scheduler runs the waits and the continuations
	 * @return the permit, when admitted; every outcome, argument errors included, completes it
	 */
	static CompletableFuture<Permit> start(RateLimitAcquirer acquirer, Ticker ticker, Ticker permitWaitClock,
			List<RateLimitRequest> requests, ScheduledExecutorService scheduler) {
		if (scheduler == null) {
			return CompletableFuture.failedFuture(new NullPointerException("scheduler"));
		}
		Acquisition acquisition;
		try {
			acquisition = new Acquisition(acquirer, ticker, permitWaitClock, requests, AsyncAcquisition::giveBack);
		}
		catch (RuntimeException | Error ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return drive(acquisition, scheduler, null);
	}

	/**
	 * Goes on with a single request whose decision was asked already, on the caller's thread, as
	 * if the call had started at {@code start} and asked it as its first step.
	 * @param acquirer tells the listeners
	 * @param ticker the clock
	 * @param permitWaitClock bounds the waits for a returned permit
	 * @param requests the one request
	 * @param scheduler runs the waits and the continuations
	 * @param start when the call started, on the ticker, before its decision was asked
	 * @param decided the decision asked for the request, with its whole budget
	 * @return the permit, when admitted; every outcome completes it
	 */
	static CompletableFuture<Permit> takeOver(RateLimitAcquirer acquirer, Ticker ticker, Ticker permitWaitClock,
			List<RateLimitRequest> requests, ScheduledExecutorService scheduler, long start,
			CompletableFuture<Reservation> decided) {
		Acquisition acquisition;
		try {
			acquisition = new Acquisition(acquirer, ticker, permitWaitClock, requests, AsyncAcquisition::giveBack);
			acquisition.startedAt(start);
		}
		catch (RuntimeException | Error ex) {
			decided.thenAccept(AsyncAcquisition::giveBack);
			return CompletableFuture.failedFuture(ex);
		}
		return drive(acquisition, scheduler, decided);
	}

	private static CompletableFuture<Permit> drive(Acquisition acquisition, ScheduledExecutorService scheduler,
			@Nullable CompletableFuture<Reservation> firstDecision) {
		AsyncAcquisition driver = new AsyncAcquisition(acquisition, scheduler);
		driver.firstDecision = firstDecision;
		driver.result.whenComplete((permit, ex) -> {
			if (ex != null) {
				driver.cancelled();
			}
		});
		driver.advance();
		return driver.result;
	}

	/** Runs steps while they need no wait; the caller owns the acquisition. */
	private void advance() {
		Acquisition acquisition = this.acquisition;
		try {
			while (true) {
				switch (acquisition.action()) {
					case RESERVE -> {
						CompletableFuture<Reservation> decided = this.firstDecision;
						if (decided != null) {
							this.firstDecision = null;
						}
						else {
							RateLimitRequest request = acquisition.request();
							decided = request.limiter()
								.reserveAsync(request.key(), request.cost(), acquisition.reserveWait());
						}
						if (decided.isDone()) {
							// Decided at once, on this thread (an in-memory store): go on here.
							Reservation reservation;
							try {
								reservation = decided.getNow(null);
							}
							catch (CompletionException ex) {
								fail(ScheduledAttempts.unwrap(ex));
								return;
							}
							acquisition.reserved(reservation);
							continue;
						}
						Pending waiting = new Pending(true);
						if (!handOver(waiting)) {
							decided.thenAccept(AsyncAcquisition::giveBack);
							return;
						}
						decided.whenComplete((reservation, ex) -> hop(() -> resume(waiting, reservation, ex)));
						return;
					}
					case WAIT -> {
						long nanos = acquisition.nanos();
						Pending waiting = new Pending(false);
						if (!handOver(waiting)) {
							return;
						}
						try {
							// Dropped unrun at the scheduler's shutdown, the wait fails rather than never ends.
							waiting.waitFor(this.scheduler.schedule(RefusableTask.of(() -> resume(waiting, null, null),
									(refusal) -> resume(waiting, null, refusal)), nanos, TimeUnit.NANOSECONDS));
						}
						catch (RuntimeException ex) {
							resume(waiting, null, ex);
						}
						return;
					}
					case AWAIT_PERMIT -> {
						RateLimitRequest request = acquisition.request();
						CompletableFuture<Void> ready = request.limiter()
							.awaitPermitAsync(request.key(), Duration.ofNanos(acquisition.nanos()), this.scheduler);
						Pending waiting = new Pending(false);
						if (!handOver(waiting)) {
							ready.cancel(false);
							return;
						}
						waiting.waitFor(ready);
						// A permit may be returned on any thread, the store's client's included.
						ready.whenComplete((done, ex) -> {
							if (!waiting.isCancelled()) {
								hop(() -> resume(waiting, null, ex));
							}
						});
						return;
					}
					case ADMIT -> {
						if (finish()) {
							Permit permit = acquisition.admit();
							if (!this.result.complete(permit)) {
								// Cancelled since: admission won the race, so the permit is closed.
								permit.closeAsync();
							}
						}
						return;
					}
					case REJECT -> {
						if (finish()) {
							this.result.completeExceptionally(acquisition.reject());
						}
						return;
					}
				}
			}
		}
		catch (RuntimeException | Error ex) {
			fail(ex);
		}
	}

	/**
	 * A step stops owning the acquisition and waits; returns {@code false} when the caller
	 * cancelled meanwhile, after giving back what is held.
	 */
	private boolean handOver(Pending waiting) {
		synchronized (this) {
			this.running = false;
			if (!this.result.isDone()) {
				this.pending = waiting;
				return true;
			}
			this.finished = true;
		}
		this.acquisition.abandon();
		return false;
	}

	/**
	 * A wait ended: takes the acquisition back if the wait is still the current one and goes on.
	 * @param waiting the wait
	 * @param reservation what a decision brought, or {@code null}
	 * @param failure why the wait failed, or {@code null}
	 */
	private void resume(Pending waiting, @Nullable Reservation reservation, @Nullable Throwable failure) {
		boolean current;
		boolean cancelled = false;
		synchronized (this) {
			current = !this.finished && this.pending == waiting;
			if (current) {
				this.pending = null;
				cancelled = this.result.isDone();
				if (cancelled) {
					this.finished = true;
				}
				else {
					this.running = true;
				}
			}
		}
		if (!current || cancelled) {
			// The call is over: whatever a late decision brought goes back at once.
			if (reservation != null) {
				giveBack(reservation);
			}
			if (cancelled) {
				this.acquisition.abandon();
			}
			return;
		}
		Acquisition acquisition = this.acquisition;
		try {
			if (failure != null) {
				throw ScheduledAttempts.unwrap(failure);
			}
			if (waiting.decision) {
				acquisition.reserved(Objects.requireNonNull(reservation, "the store decided nothing"));
			}
			else {
				acquisition.waited();
			}
		}
		catch (Throwable ex) {
			fail(ex);
			return;
		}
		advance();
	}

	/** The caller completed the future (cancelled it): gives back everything unless a step runs. */
	private void cancelled() {
		Pending waiting;
		synchronized (this) {
			if (this.finished || this.running) {
				return; // over already, or the running step sees it at its next hand-over
			}
			this.finished = true;
			waiting = this.pending;
			this.pending = null;
		}
		if (waiting != null) {
			waiting.cancel();
		}
		this.acquisition.abandon();
	}

	/**
	 * The running step ends the call; returns {@code false} when the caller cancelled
	 * meanwhile, after giving back what is held.
	 */
	private boolean finish() {
		boolean cancelled;
		synchronized (this) {
			this.running = false;
			this.finished = true;
			cancelled = this.result.isDone();
		}
		if (cancelled) {
			this.acquisition.abandon();
		}
		return !cancelled;
	}

	/** The running step failed: gives back what is held and completes with the failure. */
	private void fail(Throwable failure) {
		synchronized (this) {
			this.running = false;
			this.finished = true;
		}
		try {
			this.acquisition.abandon();
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
		}
		this.result.completeExceptionally(failure);
	}

	/**
	 * Continues on the scheduler; on the current thread only if the scheduler is shut down, as
	 * giving back there beats leaking a reservation.
	 */
	private void hop(Runnable continuation) {
		ScheduledAttempts.execute(this.scheduler, continuation);
	}

	private static void giveBack(Reservation reservation) {
		reservation.cancelAsync().whenComplete((done, ex) -> {
			if (ex != null) {
				logger.log(System.Logger.Level.WARNING, "Could not give back " + reservation, ex);
			}
		});
	}

	/**
	 * One wait: for a decision, which is never cancelled, or for a slot or a permit, cancelled
	 * when the caller cancels the call meanwhile.
	 */
	private static final class Pending {

		/** Whether a decision is awaited, whose reservation the continuation brings. */
		final boolean decision;

		private volatile @Nullable Future<?> future;

		private volatile boolean cancelled;

		Pending(boolean decision) {
			this.decision = decision;
		}

		/** Sets what is waited for; cancels it at once when the wait was cancelled first. */
		void waitFor(Future<?> future) {
			this.future = future;
			if (this.cancelled) {
				future.cancel(false);
			}
		}

		/** Whether the caller's cancellation ended the wait: nothing is to resume then. */
		boolean isCancelled() {
			return this.cancelled;
		}

		void cancel() {
			this.cancelled = true;
			Future<?> future = this.future;
			if (future != null) {
				future.cancel(false);
			}
		}

	}

}
