package dev.resilience.internal;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * Runs a step on several items that must all be done whatever one of them throws, such as
 * returning every permit a call holds: a failure of one does not leave the others held.
 */
public final class Failures {

	private Failures() {
	}

	/**
	 * Runs the action on each item, every one of them even when some throw; then throws the first
	 * {@link RuntimeException}, with the later ones suppressed in it.
	 * @param <T> the type of item
	 * @param items the items, in order
	 * @param action what to do with one item
	 */
	public static <T> void forEachThenThrowFirst(Iterable<? extends T> items, Consumer<? super T> action) {
		RuntimeException failure = null;
		for (T item : items) {
			try {
				action.accept(item);
			}
			catch (RuntimeException ex) {
				failure = firstOf(failure, ex);
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Keeps the first failure of such a step: {@code next} when there was none before, else
	 * {@code first} with {@code next} suppressed in it.
	 * @param first the failure kept so far, or {@code null}
	 * @param next a later failure
	 * @return the failure to keep
	 */
	public static RuntimeException firstOf(@Nullable RuntimeException first, RuntimeException next) {
		if (first == null) {
			return next;
		}
		first.addSuppressed(next);
		return first;
	}

}
