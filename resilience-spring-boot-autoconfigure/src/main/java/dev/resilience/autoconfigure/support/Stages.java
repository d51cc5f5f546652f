package dev.resilience.autoconfigure.support;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import org.jspecify.annotations.Nullable;

/**
 * The few moves on {@link CompletableFuture}s that every asynchronous form of a capability makes:
 * pass a cancellation inwards, complete from an outcome, and see the real failure behind the
 * wrapper a dependent stage adds.
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
			future.completeExceptionally(unwrap(failure));
		}
		else {
			future.complete(value);
		}
	}

	/**
	 * Returns the failure a dependent stage wrapped in a {@link CompletionException} (or a
	 * {@code get()} in an {@link ExecutionException}).
	 * @param failure the failure as seen
	 * @return the failure itself
	 */
	public static Throwable unwrap(Throwable failure) {
		Throwable cause = failure.getCause();
		return ((failure instanceof CompletionException || failure instanceof ExecutionException) && cause != null)
				? cause : failure;
	}

}
