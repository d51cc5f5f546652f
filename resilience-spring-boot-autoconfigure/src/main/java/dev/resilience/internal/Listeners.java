package dev.resilience.internal;

import java.util.List;
import java.util.function.Consumer;

/**
 * Tells listeners of an event the way every capability does: each in turn, and one that throws
 * is logged and skipped. A listener observes; the outcome of a call, a retry or a poll is not its
 * to change, and the listeners after it are still told.
 */
public final class Listeners {

	private Listeners() {
	}

	/**
	 * Tells each listener of an event, logging a {@link RuntimeException} of one as a warning.
	 * @param <L> the type of listener
	 * @param listeners the listeners, in order
	 * @param event what to tell one listener
	 * @param logger the capability's logger
	 * @param kind names the listeners in the warning, such as {@code Retry listener}
	 */
	public static <L> void tell(List<L> listeners, Consumer<? super L> event, System.Logger logger, String kind) {
		for (L listener : listeners) {
			try {
				event.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.log(System.Logger.Level.WARNING, kind + " " + listener + " failed", ex);
			}
		}
	}

}
