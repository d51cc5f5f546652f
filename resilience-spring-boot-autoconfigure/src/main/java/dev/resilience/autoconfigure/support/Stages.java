package dev.resilience.autoconfigure.support;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.resilience.internal.ScheduledAttempts;

/**
 * The few moves on {@link CompletableFuture}s that every asynchronous form of a capability makes:
 * pass a cancellation inwards, and complete from an outcome, seeing the real failure behind the
 * wrapper a dependent stage adds ({@link ScheduledAttempts#unwrap}).
 */
public final class Stages {

	private Stages() {
	}

	/**
	 * Cancels {@code inner} when {@code outer} is cancelled (at once if it already is).
	 * @param outer the future a caller may cancel
	 * @param inner the work behind it
	 */
	public static void cancelWith(CompletableFuture<?> outer, CompletableFuture<?> inner) {
		outer.whenComplete((value, failure) -> {
			if (outer.isCancelled()) {
				inner.cancel(true);
			}
		});
	}

	/**
	 * Completes a future with an outcome.
	 * @param <T> the value's type
	 * @param future the future
	 * @param value the value, when {@code failure} is {@code null}
	 * @param failure the failure, possibly wrapped by a dependent stage
	 */
	public static <T extends @Nullable Object> void complete(CompletableFuture<T> future, T value,
			@Nullable Throwable failure) {
		if (failure != null) {
			future.completeExceptionally(ScheduledAttempts.unwrap(failure));
		}
		else {
			future.complete(value);
		}
	}

}
