package dev.resilience.internal;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Reads the chain of causes of a failure, which retries and polls decide on: a failure counts
 * as what it wraps, too.
 */
public final class Causes {

	private Causes() {
	}

	/**
	 * Returns the failure followed by its causes, each once: a chain that comes back to an
	 * exception already seen (some libraries make one cause itself) ends there.
	 * @param failure the failure
	 * @return the failure and its causes, outermost first
	 */
	public static List<Throwable> chain(Throwable failure) {
		List<Throwable> chain = new ArrayList<>();
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable cause = failure; cause != null && seen.add(cause); cause = cause.getCause()) {
			chain.add(cause);
		}
		return chain;
	}

	/**
	 * Returns whether the failure or one of its causes tells that the thread was interrupted:
	 * an {@link InterruptedException}, a {@link ClosedByInterruptException} or an
	 * {@link InterruptedIOException} other than a {@link SocketTimeoutException}, which is only a
	 * timeout.
	 * @param failure the failure
	 * @return whether it is or wraps an interruption
	 */
	public static boolean isInterruption(Throwable failure) {
		for (Throwable cause : chain(failure)) {
			if (cause instanceof InterruptedException || cause instanceof ClosedByInterruptException
					|| (cause instanceof InterruptedIOException && !(cause instanceof SocketTimeoutException))) {
				return true;
			}
		}
		return false;
	}

}
